/**
 * The org's runs overview from the memory indexes: the runs in the period read from `runsByOrg`
 * (newest first, found by binary search, so runs outside the period are never visited) and the
 * queue from `runsByOrgStatus`.
 * @module
 */
import { bucketStartOf, percentileOf, topFailing } from '@agent-platform/core';
import type { FailingAutomation, RunRecord, RunsOverview, RunsOverviewQuery, RunStatusCounts } from '@agent-platform/core';
import type { Database } from '../database/database.js';
import { pairKey } from '../database/keys.js';
import { instantOf, type OrderedRows, type TableView } from '../table/index.js';

export function runsOverview(db: Database, view: TableView<RunRecord>, orgId: string, query: RunsOverviewQuery): RunsOverview {
  const rows = view.ordered(db.runsByOrg, orgId);
  const from = instantOf(query.from);
  const buckets = new Map<number, RunStatusCounts>();
  const totals: RunStatusCounts = {};
  const durations: number[] = [];
  const byAutomation = new Map<string, FailingAutomation>();
  for (let position = firstBefore(rows, instantOf(query.to)); position < rows.size; position += 1) {
    const run = rows.at(position);
    if (run === undefined) break;
    const created = instantOf(run.created_at);
    if (created < from) break;
    const start = bucketStartOf(created, query.bucket);
    const counts = buckets.get(start) ?? {};
    buckets.set(start, counts);
    counts[run.status] = (counts[run.status] ?? 0) + 1;
    totals[run.status] = (totals[run.status] ?? 0) + 1;
    if (run.status !== 'COMPLETED' && run.status !== 'FAILED') continue;
    if (run.completed_at) durations.push(instantOf(run.completed_at) - instantOf(run.started_at ?? run.created_at));
    const automation = byAutomation.get(run.automation_id) ?? { automation_id: run.automation_id, failed: 0, finished: 0 };
    byAutomation.set(run.automation_id, automation);
    automation.finished += 1;
    if (run.status === 'FAILED') automation.failed += 1;
  }
  durations.sort((a, b) => a - b);
  const pending = view.ordered(db.runsByOrgStatus, pairKey(orgId, 'PENDING'));
  return {
    buckets: [...buckets.entries()].sort(([a], [b]) => a - b).map(([start, counts]) => ({ start: new Date(start).toISOString(), counts })),
    totals,
    p50DurationMs: percentileOf(durations, 0.5),
    p95DurationMs: percentileOf(durations, 0.95),
    pending: pending.size,
    oldestPendingAt: pending.size === 0 ? null : (pending.at(pending.size - 1)?.created_at ?? null),
    failing: topFailing([...byAutomation.values()]),
  };
}

/** The position of the first run created before `to` in a newest-first group (binary search). */
function firstBefore(rows: OrderedRows<RunRecord>, to: number): number {
  let low = 0;
  let high = rows.size;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const row = rows.at(middle);
    if (row !== undefined && instantOf(row.created_at) >= to) low = middle + 1;
    else high = middle;
  }
  return low;
}
