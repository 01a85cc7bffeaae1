import { z } from 'zod';
import { timestampSchema } from './common.js';

/** A template for sandboxes (OpenHands shape): what runs, with which environment, where. */
export const sandboxSpecSchema = z.object({
  id: z.string(),
  /** The command a sandbox of this spec runs at start, if any (an image's entrypoint, say). */
  command: z.array(z.string()).nullable(),
  created_at: timestampSchema,
  initial_env: z.record(z.string(), z.string()),
  working_dir: z.string(),
});
export type SandboxSpec = z.infer<typeof sandboxSpecSchema>;

export const SANDBOX_STATUSES = ['STARTING', 'RUNNING', 'PAUSED', 'ERROR', 'MISSING'] as const;
export const sandboxStatusSchema = z.enum(SANDBOX_STATUSES);
export type SandboxStatus = z.infer<typeof sandboxStatusSchema>;

export const exposedUrlSchema = z.object({ name: z.string(), url: z.string(), port: z.number().int() });
export type ExposedUrl = z.infer<typeof exposedUrlSchema>;
