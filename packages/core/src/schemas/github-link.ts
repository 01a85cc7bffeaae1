import { z } from 'zod';
import { timestampSchema } from './common.js';

/**
 * Links a GitHub installation or account to an org: deliveries about it reach that org's
 * automations. Account logins are compared case-insensitively (stored lower-cased).
 */
export const githubLinkSchema = z.object({
  kind: z.enum(['installation', 'account']),
  /** Installation id (digits) or account login. */
  key: z.string().min(1).max(100),
  org_id: z.string().min(1),
  created_at: timestampSchema,
});
export type GithubLink = z.infer<typeof githubLinkSchema>;
export type GithubLinkRecord = GithubLink;
