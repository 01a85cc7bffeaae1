import { z } from 'zod';
import { timestampSchema } from './common.js';
import { metricsSnapshotSchema } from './metrics.js';
import { RUN_STATUSES } from './vocabulary.js';

export const runStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof runStatusSchema>;

/**
 * What a run reported back to GitHub (automations with `report_to_github`): where, the start
 * reaction, the outcome comment, and — when something could not be reported (no token, GitHub
 * refused it) — why. Reporting never changes the run's status.
 */
export const runReportSchema = z.object({
  /** The thread reported to, as its host names it: `owner/name#number` on GitHub. */
  target: z.string().nullable(),
  /** The host's acknowledgement (👀 on GitHub) on the comment, issue or pull request that started the run. */
  reaction: z.enum(['added', 'failed']).nullable(),
  /** The outcome comment, once posted (edited, not posted again, by later attempts): the host's id of it (a number on GitHub, a string on hosts whose ids are). */
  comment_id: z.union([z.number().int(), z.string()]).nullable(),
  comment_url: z.string().nullable(),
  /** Why the last report failed (a missing token, a refusal), without the token; `null` when all went through. */
  error: z.string().nullable(),
  /**
   * The outcome comment is still owed: true from an attempt's start until the comment is posted
   * (or could not be, and `error` says why). A worker that dies in between leaves it true, and
   * another posts the comment. Absent in reports written before it existed.
   */
  comment_due: z.boolean().optional(),
  updated_at: timestampSchema,
});
export type RunReport = z.infer<typeof runReportSchema>;

/** The members a run has both as stored and as returned. */
const runFieldsSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  automation_id: z.string(),
  /** The delivery that triggered it; `null` for a manual dispatch. */
  delivery_id: z.string().nullable(),
  trigger: z.enum(['event', 'manual']),
  event_key: z.string().nullable(),
  status: runStatusSchema,
  attempt: z.number().int().min(0),
  conversation_id: z.string().nullable(),
  sandbox_id: z.string().nullable(),
  error_detail: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: timestampSchema,
  started_at: timestampSchema.nullable(),
  completed_at: timestampSchema.nullable(),
  /** The agent's token usage and cost (built-in agent); `null` before it ran or for agents that report none. */
  metrics: metricsSnapshotSchema.nullish(),
  /**
   * The value of the automation's `concurrency_key` for this run's event (flow control): runs of one
   * automation with the same key never run at once. `null` (or absent) for none.
   */
  concurrency_key: z.string().nullish(),
  /**
   * The code-host thread a thread automation's run works in (`github:owner/name#12`): its runs
   * share one conversation, and one of them runs at a time. `null` (or absent) for none.
   */
  thread_key: z.string().nullish(),
  /** Why a PENDING run waits (queued behind another with its key, debounced); cleared when it starts. */
  held_reason: z.string().nullish(),
});

/**
 * One execution of an automation, from an event delivery or a manual dispatch, as returned. Its
 * `report` is not kept on the run: it is the answer-back feature's own record
 * (`storage.runReports`), joined to the run when the run is shown.
 */
export const runSchema = runFieldsSchema.extend({
  /** What was reported back to GitHub (automations with `report_to_github`); absent or `null` for none. */
  report: runReportSchema.nullish(),
});
export type Run = z.infer<typeof runSchema>;

/** A run as the storage adapter keeps it: a manual dispatch also keeps the payload it was given. */
export const runRecordSchema = runFieldsSchema.extend({
  /** JSON text of a manual dispatch's payload; `null` for event runs (their delivery holds it). */
  dispatch_payload_json: z.string().nullable(),
  /** The executor (worker) that holds the RUNNING run; internal. */
  lease_owner: z.string().nullish(),
  /** Until when it holds it: renewed while the run executes, so a dead worker's runs come back. */
  lease_expires_at: timestampSchema.nullish(),
  /** A PENDING run waiting out a retry backoff is not claimed before this time; internal. */
  not_before: timestampSchema.nullish(),
  /**
   * The W3C `traceparent` of the span that created the run (its delivery's, or the dispatch
   * request's), so the run's spans join that trace, whichever process executes it; internal.
   */
  trace_parent: z.string().nullish(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

export const runListSchema = z.object({ runs: z.array(runSchema), total: z.number().int() });
export type RunList = z.infer<typeof runListSchema>;

/**
 * Query of `GET /api/automation/v1/runs`: the org's runs across its automations, newest first,
 * narrowed by any of `status` (one or several, comma-separated), `automation_id` and `since` (created
 * at or after), one page of `limit` at a time; `page_id` continues from the last page's
 * `next_page_id`.
 */
export const orgRunsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  page_id: z.string().max(500).optional(),
  status: z
    .string()
    .regex(new RegExp(`^(${RUN_STATUSES.join('|')})(,(${RUN_STATUSES.join('|')}))*$`), `one or more of ${RUN_STATUSES.join(', ')}, comma-separated`)
    .optional(),
  automation_id: z.string().min(1).max(200).optional(),
  since: timestampSchema.optional(),
});
export type OrgRunsQuery = z.infer<typeof orgRunsQuerySchema>;
/** The org-wide runs query as a caller sends it (every member optional). */
export type OrgRunsQueryInput = Partial<OrgRunsQuery>;

/** A page of the org's runs: `next_page_id` continues it, `null` on the last page. */
export const orgRunPageSchema = z.object({ items: z.array(runSchema), next_page_id: z.string().nullable() });
export type OrgRunPage = z.infer<typeof orgRunPageSchema>;
