import { z } from 'zod';
import { timestampSchema } from './common.js';

/**
 * A code-host thread a thread automation works in (an issue, a pull request): the conversation
 * its runs share, the branch the agent works on and the pull request it opened, so a follow-up
 * continues that work instead of starting over. A pull request the agent opened from another
 * thread gets a record of its own naming the same conversation, so review comments on it
 * continue the same work too.
 */
export const threadRecordSchema = z.object({
  org_id: z.string(),
  automation_id: z.string(),
  /** `github:owner/name#12` (the repository in lower case). */
  key: z.string(),
  conversation_id: z.string().nullable(),
  /** The branch the agent's work is on (its pull request's head); `null` before it pushed one. */
  branch: z.string().nullable(),
  /** The pull request the agent opened for this thread (`owner/name` and number); `null` before it opened one. */
  pull_request: z.object({ repository: z.string(), number: z.number().int().positive(), url: z.string().nullable() }).nullable(),
  /** The commit whose failed checks the thread was last offered fixes for (proactive starters); absent or `null` for none. */
  offered_fix_for: z.string().nullish(),
  /** The thread's latest run. */
  last_run_id: z.string().nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type ThreadRecord = z.infer<typeof threadRecordSchema>;
