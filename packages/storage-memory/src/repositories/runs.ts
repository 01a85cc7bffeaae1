/**
 * Runs: inserted in batches (all or nothing), listed per automation and per org newest first, polled by
 * status across orgs oldest first, read by flow control (an automation's live runs of one
 * concurrency key, and how many it started since a time), and changed only by `transition`, a
 * compare-and-set whose rules are core's ({@link applyTransition}).
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import { applyTransition } from '@agent-platform/core/adapter-kit';
import type { RunGuard, RunPatch, RunRecord, RunsRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { concurrencyKey, pairKey } from '../database/keys.js';
import { offsetPage, positionAfter } from '../database/pages.js';
import { instantOf, type OrderedRows } from '../table/index.js';
import { copyOwned } from './rows.js';
import { runsOverview } from './runs-overview.js';

/** All or nothing: every id is checked (against the store and the batch) before any is written. */
export function insertRuns(db: Database, rows: readonly RunRecord[]): void {
  assertNewRuns(db, rows);
  for (const row of rows) db.runs.put(row);
}

/** Throws {@link StorageConflictError} when an id of `rows` is taken, or given twice. */
export function assertNewRuns(db: Database, rows: readonly RunRecord[]): void {
  const ids = new Set<string>();
  for (const row of rows) {
    if (ids.has(row.id) || db.runs.live.get(row.id) !== undefined) {
      throw new StorageConflictError(`A run with id ${row.id} already exists`);
    }
    ids.add(row.id);
  }
}

/**
 * Applies a transition to the org's live run and returns the row now stored (the caller copies
 * it), or `null` when the run is missing, another org's, or not in a state `guard` allows. Run
 * by whoever holds the write lock, so the read and the write are one atomic step.
 */
export function transitionRun(db: Database, orgId: string, id: string, guard: RunGuard, patch: RunPatch): RunRecord | null {
  const current = db.runs.live.get(id);
  // `applyTransition` returns a new object: the undo log may hold `current` as a pre-image.
  const next = current !== undefined && current.org_id === orgId ? applyTransition(current, guard, patch) : null;
  if (next !== null) db.runs.put(next);
  return next;
}

export function runsRepository(db: Database, access: Access): RunsRepository {
  return {
    async insertMany(records) {
      const rows = records.map(cloneJson);
      await access.write(() => insertRuns(db, rows));
    },
    async get(orgId, id) {
      return copyOwned(readView(access, db.runs).get(id), orgId);
    },
    async listByAutomation(orgId, automationId, options) {
      return offsetPage(readView(access, db.runs).ordered(db.runsByAutomation, pairKey(orgId, automationId)), options);
    },
    async listByOrg(orgId, filter) {
      const view = readView(access, db.runs);
      const statuses = filter.statuses ?? [];
      // The narrowest group that holds every match, read newest first from the cursor.
      const rows =
        filter.automationId !== undefined
          ? view.ordered(db.runsByAutomation, pairKey(orgId, filter.automationId))
          : statuses.length === 1
            ? view.ordered(db.runsByOrgStatus, pairKey(orgId, statuses[0] as string))
            : view.ordered(db.runsByOrg, orgId);
      const since = filter.since === undefined ? Number.NEGATIVE_INFINITY : instantOf(filter.since);
      const found: RunRecord[] = [];
      for (let position = filter.before ? positionAfter(rows, filter.before) : 0; position < rows.size && found.length < filter.limit; position += 1) {
        const run = rows.at(position);
        if (run === undefined || instantOf(run.created_at) < since) break;
        if (statuses.length === 0 || statuses.includes(run.status)) found.push(cloneJson(run));
      }
      return found;
    },
    async listByStatus(status, limit) {
      return readView(access, db.runs).ordered(db.runsByStatus, status).page(0, limit).map(cloneJson);
    },
    async listLive(orgId, automationId, key) {
      return readView(access, db.runs)
        .ordered(db.liveRunsByKey, concurrencyKey(orgId, automationId, key))
        .all()
        .map(cloneJson);
    },
    async countCreatedSince(orgId, automationId, since) {
      const counted = readView(access, db.runs).ordered(db.countedRunsByAutomation, pairKey(orgId, automationId));
      return counted.size - firstAtOrAfter(counted, instantOf(since));
    },
    async queueSummary() {
      const view = readView(access, db.runs);
      const pending = view.ordered(db.runsByStatus, 'PENDING');
      const runningByOrg: Record<string, number> = {};
      for (const run of view.ordered(db.runsByStatus, 'RUNNING').all()) runningByOrg[run.org_id] = (runningByOrg[run.org_id] ?? 0) + 1;
      return { pending: pending.size, oldestPendingAt: pending.at(0)?.created_at ?? null, runningByOrg };
    },
    async overview(orgId, query) {
      return cloneJson(runsOverview(db, readView(access, db.runs), orgId, query));
    },
    async transition(orgId, id, guard, patch) {
      // Copied before queueing, so changes the caller makes while the write waits do not land.
      const rule = cloneJson(guard);
      const changes = cloneJson(patch);
      return access.write(() => {
        const next = transitionRun(db, orgId, id, rule, changes);
        return next === null ? null : cloneJson(next);
      });
    },
  };
}

/** The position of the first run created at or after `since` in an oldest-first group (binary search). */
function firstAtOrAfter(rows: OrderedRows<RunRecord>, since: number): number {
  let low = 0;
  let high = rows.size;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const row = rows.at(middle);
    if (row !== undefined && instantOf(row.created_at) < since) low = middle + 1;
    else high = middle;
  }
  return low;
}
