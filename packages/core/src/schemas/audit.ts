import { z } from 'zod';
import { timestampSchema } from './common.js';
import { roleSchema } from './principal.js';

/**
 * One entry of an org's audit log: who (`actor`) did what (`action`) to what (`target`), when,
 * with what was changed (`details`: field names and non-secret values — never a secret, a
 * token or a key), in which request. Entries are numbered per org (`seq`, from 1, no gaps) and
 * chained: `hash` is the SHA-256 of the entry without it (its `prev_hash` included), so editing,
 * removing or reordering a stored entry breaks every hash after it.
 */
export const auditEntrySchema = z.object({
  id: z.string(),
  org_id: z.string(),
  seq: z.number().int().min(1),
  at: timestampSchema,
  actor: z.object({
    /** `key`: a person's API key; `thread`: a person commanding in a code-host thread (their login); `system`: the platform itself. */
    kind: z.enum(['key', 'thread', 'system']),
    /** The user (a key's), or the code-host login (a thread's); `null` for the system. */
    id: z.string().nullable(),
    role: roleSchema.nullable(),
  }),
  /** `automation.created`, `webhook.secret_rotated`, `run.cancelled`, `action.approved`, `agent.pull_request_opened`, … */
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }),
  details: z.record(z.string(), z.unknown()),
  request_id: z.string().nullable(),
  prev_hash: z.string().nullable(),
  hash: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** Query of `GET /api/automation/v1/audit`: filters, then entries after `after` (a `seq`), oldest first. */
export const auditQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  after: z.coerce.number().int().min(0).default(0),
  action: z.string().max(100).optional(),
  actor: z.string().max(200).optional(),
  target_type: z.string().max(100).optional(),
  target_id: z.string().max(200).optional(),
  since: timestampSchema.optional(),
  until: timestampSchema.optional(),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

export const auditPageSchema = z.object({
  entries: z.array(auditEntrySchema),
  /** Pass as `after` for the next page; `null` when this page was the last. */
  next_after: z.number().int().nullable(),
});
export type AuditPage = z.infer<typeof auditPageSchema>;

/** `GET /api/automation/v1/audit/verify`: whether the org's chain holds, and where it first breaks. */
export const auditVerificationSchema = z.object({
  valid: z.boolean(),
  checked: z.number().int(),
  /** The first entry whose hash or link does not hold; `null` when all do. */
  broken_at: z.number().int().nullable(),
});
export type AuditVerification = z.infer<typeof auditVerificationSchema>;
