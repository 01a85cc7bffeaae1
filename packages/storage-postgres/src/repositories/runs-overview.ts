/**
 * The org's runs overview in one statement: the runs created in the period are read from
 * `runs_by_org` alone (index-only range scans of the org's runs: status, automation and times
 * are in the index, so no record is read) and counted per bucket and status, their durations'
 * percentiles taken and their finished runs counted per automation; the queue comes from an index
 * of the org's PENDING runs. Ordering and the top 5 are done here, on the few rows the statement
 * answers, so it needs no sort of its own.
 * @module
 */
import { topFailing } from '@agent-platform/core';
import type { RunsOverview, RunsOverviewQuery, RunStatus, RunStatusCounts } from '@agent-platform/core';
import { fromText, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';

/** The org's runs created in the period ($1 org, $2 from, $3 to), read from `runs_by_org` alone. */
const PERIOD = `FROM agent_platform.runs WHERE org_id = $1 AND created_at >= $2::timestamptz AND created_at < $3::timestamptz`;

/**
 * $1 org, $2 from, $3 to (ISO), $4 the bucket's width (`1 hour` or `1 day`; `date_bin` from a UTC
 * midnight, cheaper per run than `date_trunc` in a zone). Three reads of the period's range of
 * the index, each aggregated by hashing (one read grouped by bucket, status and automation
 * answers as many rows as runs in the worst case, which costs more than the reads it saves).
 */
export const RUNS_OVERVIEW = `SELECT buckets.list::text AS buckets, durations.p[1] AS p50, durations.p[2] AS p95, failing.list::text AS failing,
       queue.pending, queue.oldest AS oldest_pending
  FROM (SELECT coalesce(json_agg(json_build_array(date_part('epoch', b.start) * 1000, b.status, b.n)), '[]') AS list
          FROM (SELECT date_bin($4::interval, created_at, '2000-01-01T00:00:00Z'::timestamptz) AS start, status, count(*)::int AS n
                  ${PERIOD} GROUP BY 1, 2) AS b) AS buckets,
       (SELECT percentile_disc(ARRAY[0.5, 0.95]::float8[])
                 WITHIN GROUP (ORDER BY round(date_part('epoch', completed_at - coalesce(started_at, created_at)) * 1000)) AS p
          ${PERIOD} AND status IN ('COMPLETED', 'FAILED') AND completed_at IS NOT NULL) AS durations,
       (SELECT coalesce(json_agg(json_build_array(f.automation_id, f.failed, f.finished)), '[]') AS list
          FROM (SELECT automation_id, count(*) FILTER (WHERE status = 'FAILED')::int AS failed, count(*)::int AS finished
                  ${PERIOD} AND status IN ('COMPLETED', 'FAILED')
                 GROUP BY automation_id HAVING count(*) FILTER (WHERE status = 'FAILED') > 0) AS f) AS failing,
       (SELECT count(*)::int AS pending, date_part('epoch', min(created_at)) * 1000 AS oldest
          FROM agent_platform.runs WHERE org_id = $1 AND status = 'PENDING') AS queue`;

const WIDTHS = { hour: '1 hour', day: '1 day' } as const;

interface OverviewRow {
  buckets: string;
  p50: number | null;
  p95: number | null;
  failing: string;
  pending: number;
  oldest_pending: number | null;
}

export async function runsOverview(sql: Sql, orgId: string, query: RunsOverviewQuery): Promise<RunsOverview> {
  const { rows } = await sql.query<OverviewRow>(RUNS_OVERVIEW, [toText(orgId), query.from, query.to, WIDTHS[query.bucket]]);
  const row = rows[0] as OverviewRow;
  const buckets = new Map<number, RunStatusCounts>();
  const totals: RunStatusCounts = {};
  for (const [start, status, n] of JSON.parse(row.buckets) as [number, RunStatus, number][]) {
    const counts = buckets.get(start) ?? {};
    buckets.set(start, counts);
    counts[status] = n;
    totals[status] = (totals[status] ?? 0) + n;
  }
  const failing = (JSON.parse(row.failing) as [string, number, number][]).map(([automationId, failed, finished]) => ({
    automation_id: fromText(automationId),
    failed,
    finished,
  }));
  return {
    buckets: [...buckets.entries()].sort(([a], [b]) => a - b).map(([start, counts]) => ({ start: new Date(start).toISOString(), counts })),
    totals,
    p50DurationMs: numberOrNull(row.p50),
    p95DurationMs: numberOrNull(row.p95),
    pending: Number(row.pending),
    oldestPendingAt: row.oldest_pending === null ? null : new Date(Number(row.oldest_pending)).toISOString(),
    failing: topFailing(failing),
  };
}

function numberOrNull(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}
