/**
 * The rules of the run state machine, written once for every adapter: which
 * transitions a guard allows, what a claim, a recovery, a completion and a release write. Storage
 * adapters that apply a transition by reading and writing under their own lock use
 * {@link applyTransition}; SQL adapters express the same rules in their statements, and the
 * conformance suites hold both to them.
 * @module
 */
import type { RunGuard, RunPatch, RunsRepository } from '../ports/storage.js';
import { interruptedReason, type ClaimRequest, type RunQueue } from '../ports/run-queue.js';
import type { RunRecord, RunStatus } from '../schemas/run.js';
import { FINAL_RUN_STATUSES } from '../schemas/vocabulary.js';
import { RUN_PATCH_FIELDS } from '../ports/storage.js';

export function isFinalRunStatus(status: RunStatus): boolean {
  return FINAL_RUN_STATUSES.includes(status);
}

/** Whether `run` is in the state `guard` asks for (a final run never is). */
export function guardAllows(run: RunRecord, guard: RunGuard): boolean {
  if (isFinalRunStatus(run.status) || !guard.from.includes(run.status)) return false;
  return guard.leaseOwner === undefined || (run.lease_owner ?? null) === guard.leaseOwner;
}

/** `run` with the members of `patch` that are not `undefined`. */
export function patchRun(run: RunRecord, patch: RunPatch): RunRecord {
  const next: RunRecord = { ...run };
  for (const field of RUN_PATCH_FIELDS) {
    const value = patch[field];
    if (value !== undefined) (next as Record<string, unknown>)[field] = value;
  }
  return next;
}

/** The run a transition writes, or `null` when the guard does not allow it. */
export function applyTransition(run: RunRecord | null | undefined, guard: RunGuard, patch: RunPatch): RunRecord | null {
  if (!run || !guardAllows(run, guard)) return null;
  return patchRun(run, patch);
}

/** Whether a PENDING run may be claimed at `now` (its retry backoff is over). */
export function isClaimable(run: RunRecord, now: Date): boolean {
  return run.status === 'PENDING' && (!run.not_before || Date.parse(run.not_before) <= now.getTime());
}

/** What a claim writes on a PENDING run. */
export function claimPatch(run: RunRecord, request: ClaimRequest): RunPatch {
  return {
    status: 'RUNNING',
    attempt: run.attempt + 1,
    started_at: request.now.toISOString(),
    error_detail: null,
    not_before: null,
    held_reason: null,
    lease_owner: request.owner,
    lease_expires_at: new Date(request.now.getTime() + request.leaseMs).toISOString(),
  };
}

/** Whether a RUNNING run's lease lapsed by `now`. */
export function leaseLapsed(run: RunRecord, now: Date): boolean {
  return run.status === 'RUNNING' && (!run.lease_expires_at || Date.parse(run.lease_expires_at) <= now.getTime());
}

/** What a recovery writes on a RUNNING run whose lease lapsed. */
export function recoveryPatch(run: RunRecord, now: Date, maxAttempts: number): RunPatch {
  const error_detail = interruptedReason(run.attempt);
  const cleared = { lease_owner: null, lease_expires_at: null, error_detail };
  return run.attempt >= maxAttempts ? { ...cleared, status: 'FAILED', completed_at: now.toISOString() } : { ...cleared, status: 'PENDING' };
}

/** `complete` and `release` of a {@link RunQueue}: transitions of a run its owner holds. */
export function leasedRunOps(runs: Pick<RunsRepository, 'transition'>): Pick<RunQueue, 'complete' | 'release'> {
  return {
    complete(owner, run, completion) {
      return runs.transition(run.orgId, run.id, { from: ['RUNNING'], leaseOwner: owner }, { ...completion, lease_owner: null, lease_expires_at: null });
    },
    release(owner, run, release) {
      return runs.transition(
        run.orgId,
        run.id,
        { from: ['RUNNING'], leaseOwner: owner },
        { status: 'PENDING', ...release, lease_owner: null, lease_expires_at: null },
      );
    },
  };
}
