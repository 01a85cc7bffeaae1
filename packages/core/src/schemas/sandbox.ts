import { z } from 'zod';
import { timestampSchema } from './common.js';
import { exposedUrlSchema, sandboxStatusSchema } from './sandbox-spec.js';

/** A sandbox as returned (OpenHands shape). `session_api_key` only to its owner, only while RUNNING. */
export const sandboxSchema = z.object({
  id: z.string(),
  created_by_user_id: z.string(),
  sandbox_spec_id: z.string(),
  status: sandboxStatusSchema,
  session_api_key: z.string().nullable(),
  exposed_urls: z.array(exposedUrlSchema),
  created_at: timestampSchema,
});
export type Sandbox = z.infer<typeof sandboxSchema>;

/** A sandbox as the storage adapter keeps it: the session key sealed, and which runtime holds it. */
export const sandboxRecordSchema = sandboxSchema.omit({ session_api_key: true }).extend({
  org_id: z.string(),
  /** The runtime that created it (`process`, `docker`). */
  runtime: z.string(),
  /** Sealed with the `SecretBox`. */
  session_api_key: z.string(),
  updated_at: timestampSchema,
});
export type SandboxRecord = z.infer<typeof sandboxRecordSchema>;
