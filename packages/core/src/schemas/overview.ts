/**
 * `GET /api/automation/v1/overview`: what the console's home charts — the org's runs created in a
 * period, by status over time, their success rate and durations, the queue now, and the
 * automations failing most. Spend by day is the usage report's (`GET /api/automation/v1/usage`).
 * @module
 */
import { z } from 'zod';
import { timestampSchema } from './common.js';
import { RUN_STATUSES } from './vocabulary.js';

export const OVERVIEW_BUCKETS = ['hour', 'day'] as const;

/**
 * The period (`from` inclusive, `to` exclusive, ISO instants; default the 7 days to now) and the
 * bucket width (`hour` or `day`, aligned to UTC; default `hour` for periods up to 2 days).
 */
export const overviewQuerySchema = z.strictObject({
  from: timestampSchema.optional(),
  to: timestampSchema.optional(),
  bucket: z.enum(OVERVIEW_BUCKETS).optional(),
});
export type OverviewQuery = z.infer<typeof overviewQuerySchema>;

/** A count for every run status (0 for none). */
export const runStatusCountsSchema = z.object(
  Object.fromEntries(RUN_STATUSES.map((status) => [status, z.number().int()])) as Record<(typeof RUN_STATUSES)[number], z.ZodNumber>,
);
export type RunStatusCountsView = z.infer<typeof runStatusCountsSchema>;

export const overviewSchema = z.object({
  from: timestampSchema,
  to: timestampSchema,
  bucket: z.enum(OVERVIEW_BUCKETS),
  /** Every bucket of the period, oldest first, with the runs created in it by status; the first starts at or before `from`. */
  buckets: z.array(z.object({ start: timestampSchema, counts: runStatusCountsSchema })),
  /** The runs created in the period, by status. */
  totals: runStatusCountsSchema,
  /** COMPLETED / (COMPLETED + FAILED) of the period's runs; `null` when none finished. */
  success_rate: z.number().nullable(),
  /**
   * Durations of the period's finished (COMPLETED or FAILED) runs, in ms, nearest rank: each run's
   * `completed_at − started_at` (its last attempt), or `− created_at` when it never started.
   */
  duration_ms: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
  /** The org's PENDING runs now (whenever created) and the oldest one's `created_at`. */
  queue: z.object({ pending: z.number().int(), oldest_pending_at: timestampSchema.nullable() }),
  /** Up to 5 automations with FAILED runs in the period, most failures first. `name` is `null` for a deleted automation. */
  failing_automations: z.array(
    z.object({
      automation_id: z.string(),
      name: z.string().nullable(),
      failed: z.number().int(),
      finished: z.number().int(),
    }),
  ),
});
export type Overview = z.infer<typeof overviewSchema>;
