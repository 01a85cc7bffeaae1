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
  /**
   * The container image it runs: the owner's (`sandbox_runtime_container_image`, else
   * `sandbox_base_container_image`) or the spec's; `null` on a runtime that runs no images.
   */
  image: z.string().nullable(),
  /**
   * The host it runs on where the runtime places sandboxes on one of several (the Docker
   * runtime's engine name with `engines`), as the runtime says now; `null` otherwise, and for a
   * sandbox the platform has given up (MISSING).
   */
  engine: z.string().nullable(),
  created_at: timestampSchema,
});
export type Sandbox = z.infer<typeof sandboxSchema>;

/** A sandbox as the storage adapter keeps it: the session key sealed, and which runtime holds it (its engine: the runtime's to say, not stored). */
export const sandboxRecordSchema = sandboxSchema.omit({ session_api_key: true, engine: true }).extend({
  org_id: z.string(),
  /** The runtime that created it (`process`, `docker`). */
  runtime: z.string(),
  /** Sealed with the `SecretBox`. */
  session_api_key: z.string(),
  /** Absent on records stored before images were recorded. */
  image: z.string().nullish(),
  updated_at: timestampSchema,
});
export type SandboxRecord = z.infer<typeof sandboxRecordSchema>;
