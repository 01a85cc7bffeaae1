/**
 * The runs' overview as the storage aggregates it (`runs.overview`): what the console's home
 * charts, computed where the runs are kept, never by listing them.
 * @module
 */
import type { RunStatus } from '../schemas/run.js';

/** The width of an overview's buckets, aligned to UTC hours or days. */
export type OverviewBucket = 'hour' | 'day';

/** The period a {@link RunsOverview} covers: runs created in `[from, to)`, counted per `bucket`. */
export interface RunsOverviewQuery {
  /** ISO instant, inclusive. */
  from: string;
  /** ISO instant, exclusive. */
  to: string;
  bucket: OverviewBucket;
}

/** Counts of runs per status; statuses with none are absent. */
export type RunStatusCounts = Partial<Record<RunStatus, number>>;

/** One bucket of runs created: its start (a UTC hour or midnight, ISO) and its counts by status. */
export interface RunsOverviewBucket {
  start: string;
  counts: RunStatusCounts;
}

/** An automation's finished runs in the period, for "the automations failing most". */
export interface FailingAutomation {
  automation_id: string;
  /** FAILED runs. */
  failed: number;
  /** COMPLETED and FAILED runs. */
  finished: number;
}

/**
 * What {@link RunsRepository.overview} answers. "Finished" is COMPLETED or FAILED (SKIPPED runs
 * never ran, CANCELLED ones were stopped). A run's duration is `completed_at − started_at` (its
 * last attempt's), or `completed_at − created_at` when it never started; runs without
 * `completed_at` have none.
 */
export interface RunsOverview {
  /** Only the buckets with runs, oldest first; the first may start before `from`. */
  buckets: RunsOverviewBucket[];
  /** Over the whole period. */
  totals: RunStatusCounts;
  /** The median duration of the finished runs, in ms (the lower middle value: nearest rank); `null` with none. */
  p50DurationMs: number | null;
  /** The 95th percentile by nearest rank, in ms; `null` with none. */
  p95DurationMs: number | null;
  /** The org's PENDING runs now, whenever created. */
  pending: number;
  /** `created_at` of the org's oldest PENDING run; `null` when there is none. */
  oldestPendingAt: string | null;
  /** At most 5 automations with FAILED runs in the period, most failures first (then fewest finished, then id). */
  failing: FailingAutomation[];
}

/** How many automations {@link RunsOverview.failing} lists. */
export const FAILING_AUTOMATIONS_LIMIT = 5;

/** The start of the UTC hour or day `instant` (ms) falls in, in ms. */
export function bucketStartOf(instant: number, bucket: OverviewBucket): number {
  const width = bucket === 'hour' ? 3_600_000 : 86_400_000;
  return Math.floor(instant / width) * width;
}

/** Nearest-rank percentile of ascending `sorted` (as SQL's `percentile_disc`); `null` when empty. */
export function percentileOf(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? null;
}

/** Orders failing automations as {@link RunsOverview.failing} lists them and keeps the first 5. */
export function topFailing(automations: readonly FailingAutomation[]): FailingAutomation[] {
  return automations
    .filter((each) => each.failed > 0)
    .sort((a, b) => b.failed - a.failed || a.finished - b.finished || (a.automation_id < b.automation_id ? -1 : a.automation_id > b.automation_id ? 1 : 0))
    .slice(0, FAILING_AUTOMATIONS_LIMIT);
}
