/**
 * The runs' storage port: inserted in batches, read per automation, per org and per status,
 * and changed only by a guarded transition.
 * @module
 */
import type { RunRecord, RunStatus } from '../schemas/run.js';
import type { RunsOverview, RunsOverviewQuery } from './runs-overview.js';
import type { ListOptions, ListResult } from './storage.js';

export interface RunsRepository {
  /** Throws {@link StorageConflictError} when an id exists (and inserts none of them). */
  insertMany(records: readonly RunRecord[]): Promise<void>;
  get(orgId: string, id: string): Promise<RunRecord | null>;
  /** An automation's runs, newest first (by `created_at`, then `id` descending). */
  listByAutomation(orgId: string, automationId: string, options: ListOptions): Promise<ListResult<RunRecord>>;
  /**
   * The org's runs across its automations that match `filter`, newest first (by `created_at`, then
   * `id` descending), at most `filter.limit`. Reads the org's runs in that order through an index
   * (never other orgs' runs, never a sort of the whole org); `since` ends the walk.
   */
  listByOrg(orgId: string, filter: OrgRunsFilter): Promise<RunRecord[]>;
  /**
   * Runs in `status` across all orgs, oldest first (by `created_at`, then `id` ascending), at most
   * `limit`. Must not scan runs in other statuses: the executor polls it.
   */
  listByStatus(status: RunStatus, limit: number): Promise<RunRecord[]>;
  /**
   * The one way a stored run changes: a compare-and-set. Atomically, when the org's run exists,
   * its status is in `guard.from` and not final (COMPLETED, FAILED, CANCELLED, SKIPPED — a final
   * run never changes, whatever `from` says), and — when `guard.leaseOwner` is given — its
   * `lease_owner` equals it (`null`: held by nobody), the members of `patch` that are not
   * `undefined` are written and the run is returned as stored. Otherwise nothing is written and
   * the answer is `null`. Of concurrent transitions from one state, exactly one succeeds.
   */
  transition(orgId: string, id: string, guard: RunGuard, patch: RunPatch): Promise<RunRecord | null>;
  /**
   * An automation's PENDING and RUNNING runs whose `concurrency_key` equals `concurrencyKey`
   * (`null`: runs with none, or with the member absent), oldest first (by `created_at`, then `id`).
   * Flow control reads it inside a transaction before it adds a run. Must not scan
   * the automation's finished runs.
   */
  listLive(orgId: string, automationId: string, concurrencyKey: string | null): Promise<RunRecord[]>;
  /** How many of an automation's runs were created at or after `since` and are neither SKIPPED nor CANCELLED (rate limits). */
  countCreatedSince(orgId: string, automationId: string, since: string): Promise<number>;
  /**
   * Where the queue stands, over every org: read for the metrics at each scrape. Must not scan
   * finished runs.
   */
  queueSummary(): Promise<RunQueueSummary>;
  /**
   * The org's runs created in `[query.from, query.to)`, aggregated (counts per bucket and status,
   * durations, the failing automations) plus its queue now. Reads the org's runs in the period
   * through an index and aggregates them where they are kept: never other orgs' runs, never a
   * list of every run.
   */
  overview(orgId: string, query: RunsOverviewQuery): Promise<RunsOverview>;
}

/** Filters of {@link RunsRepository.listByOrg}; every one given must hold. */
export interface OrgRunsFilter {
  limit: number;
  /** Runs in any of these statuses. */
  statuses?: readonly RunStatus[];
  automationId?: string;
  /** `created_at` at or after this (ISO). */
  since?: string;
  /** Only runs after this one in newest-first order: `(created_at, id)` below `(createdAt, id)` (the cursor of a next page). */
  before?: { createdAt: string; id: string };
}

/** What {@link RunsRepository.queueSummary} answers. */
export interface RunQueueSummary {
  /** PENDING runs (those waiting out a backoff or held by flow control included). */
  pending: number;
  /** `created_at` of the oldest PENDING run; `null` when there is none. */
  oldestPendingAt: string | null;
  /** RUNNING runs per org; orgs with none are absent. */
  runningByOrg: Record<string, number>;
}

/** The state a {@link RunsRepository.transition} requires. */
export interface RunGuard {
  from: readonly RunStatus[];
  /** The lease owner the run must have; `null` for none. Omitted: any. */
  leaseOwner?: string | null;
}

/** What a transition may write; the run's identity and origin never change. */
export type RunPatch = Partial<
  Pick<
    RunRecord,
    | 'status'
    | 'attempt'
    | 'conversation_id'
    | 'sandbox_id'
    | 'error_detail'
    | 'started_at'
    | 'completed_at'
    | 'lease_owner'
    | 'lease_expires_at'
    | 'not_before'
    | 'metrics'
    | 'held_reason'
  >
>;

/** The members a {@link RunPatch} may hold, for adapters that build their writes from it. */
export const RUN_PATCH_FIELDS = [
  'status',
  'attempt',
  'conversation_id',
  'sandbox_id',
  'error_detail',
  'started_at',
  'completed_at',
  'lease_owner',
  'lease_expires_at',
  'not_before',
  'metrics',
  'held_reason',
] as const satisfies readonly (keyof RunPatch)[];
