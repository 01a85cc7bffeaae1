/**
 * The run queue port: how executors in any number of processes take PENDING
 * runs from the storage they share. A claim honours the per-org and global limits counted over
 * every process; a claimed run is held under a lease that its executor renews, so a run whose
 * executor died comes back when the lease lapses. Every adapter runs the conformance suite
 * `testRunQueue` from `@agent-platform/testing`.
 *
 * The queue is the runs table: each adapter ships with its storage adapter
 * (`storage.runQueue`). Status changes outside the queue (a cancel, attaching a conversation) go
 * through `storage.runs.transition`, the one compare-and-set every status change uses.
 * @module
 */
import type { MetricsSnapshot } from '../schemas/metrics.js';
import type { RunRecord, RunStatus } from '../schemas/run.js';

/** A run by its org and id. */
export interface RunRef {
  orgId: string;
  id: string;
}

/** Counted over every process that shares the storage. `Infinity` for no limit. */
export interface RunQueueLimits {
  /** Runs RUNNING at once per org. */
  perOrg: number;
  /** Runs RUNNING at once overall. */
  global: number;
}

export interface ClaimRequest {
  /** The executor claiming: becomes the runs' `lease_owner`. */
  owner: string;
  /** Most runs to claim (this executor's free slots). */
  max: number;
  /** How long the lease lasts without a renewal. */
  leaseMs: number;
  /** The caller's clock: `started_at`, the lease's expiry and `not_before` are read against it. */
  now: Date;
  limits: RunQueueLimits;
}

/** What a finished attempt writes. `lease_owner` and `lease_expires_at` are cleared. */
export interface RunCompletion {
  status: Extract<RunStatus, 'COMPLETED' | 'FAILED' | 'SKIPPED'>;
  error_detail: string | null;
  completed_at: string;
  /** The agent's token usage and cost, when it reported them. */
  metrics?: MetricsSnapshot | null;
}

/** What a run handed back to the queue writes. `lease_owner` and `lease_expires_at` are cleared. */
export interface RunRelease {
  error_detail: string | null;
  /** Not claimed again before this time (a retry's backoff); `null` for at once. */
  not_before: string | null;
  /** The attempt count to keep: the claimed one (a failed attempt), or one less (not the run's fault). */
  attempt: number;
}

export interface RecoveredRuns {
  /** Lapsed runs put back to PENDING for another attempt. */
  requeued: RunRef[];
  /** Lapsed runs that had their last attempt: FAILED. */
  failed: RunRef[];
}

export interface RunQueue {
  /**
   * Moves up to `max` PENDING runs whose `not_before` is unset or has passed to RUNNING, oldest
   * first (by `created_at`, then id), and returns them as written: `attempt` + 1, `started_at` =
   * now, `error_detail` and `not_before` cleared, the lease given to `owner` until now +
   * `leaseMs`. A run is skipped when its org already has `limits.perOrg` runs RUNNING; no more
   * are claimed once `limits.global` runs are RUNNING — counting runs held by every owner in
   * every process. A run with a `concurrency_key` is skipped while a run of the same automation
   * with the same key is RUNNING, and one claim never takes two such runs (flow control). `held_reason`
   * is cleared. Concurrent claims never take the same run, and never exceed the limits together. An org at its limit never holds back other orgs' runs behind it.
   */
  claim(request: ClaimRequest): Promise<RunRecord[]>;
  /**
   * Extends to `leaseExpiresAt` the leases `owner` still holds among `runs` (RUNNING, owned by it),
   * and returns those; the runs left out were lost (cancelled, finished, or taken back after the
   * lease lapsed) and their execution should stop.
   */
  renew(owner: string, runs: readonly RunRef[], leaseExpiresAt: string): Promise<RunRef[]>;
  /** RUNNING and held by `owner` → a final status. `null` when it is not (e.g. it was cancelled). */
  complete(owner: string, run: RunRef, completion: RunCompletion): Promise<RunRecord | null>;
  /** RUNNING and held by `owner` → PENDING, for another claim. `null` when it is not held. */
  release(owner: string, run: RunRef, release: RunRelease): Promise<RunRecord | null>;
  /**
   * RUNNING runs whose lease lapsed by `now` (or that have none) belong to an executor that died:
   * back to PENDING with `error_detail` "attempt N was interrupted: its executor stopped", or
   * FAILED with that reason (and `completed_at` = now) when `attempt` ≥ `maxAttempts`. Leases are
   * cleared. Runs whose lease was renewed meanwhile are left alone.
   */
  recover(now: Date, maxAttempts: number): Promise<RecoveredRuns>;
}

/** The reason {@link RunQueue.recover} records. */
export function interruptedReason(attempt: number): string {
  return `attempt ${attempt} was interrupted: its executor stopped`;
}
