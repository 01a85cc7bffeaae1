/**
 * The memory store's {@link RunQueue}: the runs table itself, read and written under the store's
 * one write lock. Each operation is a single synchronous step under that lock, so it is atomic
 * and serializes with every write and transaction: concurrent claims can neither take one run
 * twice nor exceed the limits together, and a claim never sees a transaction half done.
 *
 * Costs:
 * - `claim` scans PENDING runs oldest first (the `runsByStatus` index) and skips those whose
 *   `not_before` has not passed, those of orgs already at `limits.perOrg`, and those whose
 *   concurrency key is busy (a run of the same automation with that key is RUNNING, or was chosen
 *   by this claim), so its cost can grow with such runs sitting ahead of claimable ones. The
 *   checks are O(1): an org's RUNNING count is the size of its group in `runningRunsByOrg`, the
 *   global one the size of the RUNNING group of `runsByStatus`, a busy key a non-empty group of
 *   `runningRunsByKey`.
 * - `recover` reads only the RUNNING runs; `renew` only the runs it is given.
 *
 * Every write goes through {@link transitionRun}, so the queue obeys the same compare-and-set
 * rules as `runs.transition`, and `complete` and `release` are core's transitions of a held run.
 * @module
 */
import { claimPatch, isClaimable, leaseLapsed, leasedRunOps, recoveryPatch } from '@agent-platform/core/adapter-kit';
import type { ClaimRequest, RecoveredRuns, RunQueue, RunRecord, RunsRepository } from '@agent-platform/core';
import type { Access } from './database/access.js';
import { cloneJson } from './database/clone-json.js';
import type { Database } from './database/database.js';
import { concurrencyKey } from './database/keys.js';
import { transitionRun } from './repositories/runs.js';

/**
 * @param access - The adapter's own access: its writes take the store's lock.
 * @param runs - The adapter's own runs repository, for `complete` and `release`.
 */
export function createRunQueue(db: Database, access: Access, runs: RunsRepository): RunQueue {
  return {
    async claim(request) {
      // Copied before queueing, like every write's arguments.
      const claim: ClaimRequest = { ...request, now: new Date(request.now.getTime()), limits: { ...request.limits } };
      return access.write(() =>
        chooseClaimable(db, claim).flatMap((run) => {
          const next = transitionRun(db, run.org_id, run.id, { from: ['PENDING'] }, claimPatch(run, claim));
          return next === null ? [] : [cloneJson(next)];
        }),
      );
    },

    async renew(owner, refs, leaseExpiresAt) {
      const targets = refs.map(({ orgId, id }) => ({ orgId, id }));
      return access.write(() =>
        targets.filter((ref) => transitionRun(db, ref.orgId, ref.id, { from: ['RUNNING'], leaseOwner: owner }, { lease_expires_at: leaseExpiresAt }) !== null),
      );
    },

    async recover(now, maxAttempts) {
      const at = new Date(now.getTime());
      return access.write(() => {
        const recovered: RecoveredRuns = { requeued: [], failed: [] };
        // `all()` is an array read before any write, so moving runs out of the group is safe.
        for (const run of db.runs.live.ordered(db.runsByStatus, 'RUNNING').all()) {
          if (!leaseLapsed(run, at)) continue;
          const next = transitionRun(db, run.org_id, run.id, { from: ['RUNNING'] }, recoveryPatch(run, at, maxAttempts));
          if (next === null) continue;
          (next.status === 'FAILED' ? recovered.failed : recovered.requeued).push({ orgId: next.org_id, id: next.id });
        }
        return recovered;
      });
    },

    ...leasedRunOps(runs),
  };
}

/**
 * The PENDING runs a claim takes, oldest first: due at `now`, within `limits` counting the runs
 * already RUNNING and those chosen before them, at most `max`; a run with a concurrency key only
 * when no run of its automation with that key is RUNNING or chosen already. Chosen before any is
 * written, because writing moves a run out of the PENDING group being read.
 */
function chooseClaimable(db: Database, { max, limits, now }: ClaimRequest): RunRecord[] {
  const pending = db.runs.live.ordered(db.runsByStatus, 'PENDING');
  const chosen: RunRecord[] = [];
  const chosenByOrg = new Map<string, number>();
  // The (automation, key) groups this claim took a run of: a second run of one waits its turn.
  const chosenKeys = new Set<string>();
  let running = db.runsByStatus.size('RUNNING');
  for (let position = 0; position < pending.size && chosen.length < max && running < limits.global; position += 1) {
    const run = pending.at(position);
    if (run === undefined || !isClaimable(run, now)) continue;
    const ofOrg = chosenByOrg.get(run.org_id) ?? 0;
    if (db.runningRunsByOrg.get(run.org_id).size + ofOrg >= limits.perOrg) continue;
    const key = typeof run.concurrency_key === 'string' ? concurrencyKey(run.org_id, run.automation_id, run.concurrency_key) : null;
    if (key !== null && (chosenKeys.has(key) || db.runningRunsByKey.get(key).size > 0)) continue;
    chosen.push(run);
    chosenByOrg.set(run.org_id, ofOrg + 1);
    if (key !== null) chosenKeys.add(key);
    running += 1;
  }
  return chosen;
}
