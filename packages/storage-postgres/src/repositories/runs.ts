/**
 * Runs: inserted in batches (all or nothing), listed per automation newest first, polled by
 * status across orgs, oldest first, through an index on (status, created_at, id), read by flow
 * control (an automation's live runs of one concurrency key, through a partial index of live
 * runs; how many it started since a time, through the per-automation index), and changed only
 * by `transition`: one guarded UPDATE (which keeps the `started_at`/`completed_at` columns as
 * `data` has them), so of concurrent transitions from one state exactly one
 * finds the row still in it (READ COMMITTED re-checks the guard on the row it waited for;
 * SERIALIZABLE transactions fail and run again).
 * @module
 */
import type { OrgRunsFilter, RunPatch, RunRecord, RunsRepository } from '@agent-platform/core';
import { FINAL_RUN_STATUSES, StorageConflictError } from '@agent-platform/core';
import { RUN_PATCH_FIELDS } from '@agent-platform/core/adapter-kit';
import { isUniqueViolation } from '../sql/errors.js';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { limitOffset, offsetPage, recordOf, recordsOf, type DataRow } from './rows.js';
import { runsOverview } from './runs-overview.js';

/** Final statuses are never left, whatever a guard names. */
const NOT_FINAL = `status <> ALL('{${FINAL_RUN_STATUSES.join(',')}}'::text[])`;

/** A guard's `leaseOwner: null`: the key is absent or JSON null (`->>` is SQL NULL for both). */
const LEASE_FREE = ` AND data->>'lease_owner' IS NULL`;
const LEASE_HELD_BY = ` AND data->>'lease_owner' = $6`;

/**
 * Inserts runs given as a JSON array (`r.value` per run): the caller adds the `FROM` that names
 * the array. Shared with ingest's one-statement delivery write.
 */
export const INSERT_RUNS = `INSERT INTO agent_platform.runs (id, org_id, automation_id, status, created_at, started_at, completed_at, data)
  SELECT r.value->>'id', r.value->>'org_id', r.value->>'automation_id', r.value->>'status',
         (r.value->>'created_at')::timestamptz, (r.value->>'started_at')::timestamptz, (r.value->>'completed_at')::timestamptz, r.value`;

/**
 * The assignments that keep the `started_at` and `completed_at` columns (the overview's durations,
 * read from `runs_by_org`) as the patch `patch` (a jsonb expression) leaves `data`: a member the
 * patch has (a time, or JSON null) replaces the column; one it lacks keeps it. Every UPDATE that
 * merges a patch into `data` writes them.
 */
export function runTimesFrom(patch: string, table = ''): string {
  const column = (name: string) => `${name} = CASE WHEN ${patch} ? '${name}' THEN (${patch}->>'${name}')::timestamptz ELSE ${table}${name} END`;
  return `${column('started_at')}, ${column('completed_at')}`;
}

/**
 * An automation's live runs of one concurrency key, oldest first: spelled as the partial index
 * `runs_live_by_key` is (its status list and key expression), so the planner reads only it. A
 * missing key and JSON null are both SQL NULL under `->>`, as the port counts them alike. `IS
 * NULL` is no equality to the planner, so the unkeyed form also orders by the key (all NULL, so
 * no change) to have the index's order serve it instead of a sort.
 */
export const LIST_LIVE = {
  keyed: `SELECT data::text AS data FROM agent_platform.runs
   WHERE org_id = $1 AND automation_id = $2 AND status IN ('PENDING', 'RUNNING') AND (data->>'concurrency_key') = $3
   ORDER BY created_at, id`,
  unkeyed: `SELECT data::text AS data FROM agent_platform.runs
   WHERE org_id = $1 AND automation_id = $2 AND status IN ('PENDING', 'RUNNING') AND (data->>'concurrency_key') IS NULL
   ORDER BY (data->>'concurrency_key'), created_at, id`,
} as const;

/**
 * The org's runs newest first with only the conditions a filter gives (no `$n IS NULL OR …`, which
 * would keep the planner from the index that fits): `runs_by_org`, `runs_by_org_status` (one
 * status) or `runs_by_automation`, read backwards from the page's cursor.
 */
export function orgRunsQuery(orgId: string, filter: OrgRunsFilter): { text: string; params: unknown[] } {
  const params: unknown[] = [toText(orgId)];
  const where = ['org_id = $1'];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.automationId !== undefined) where.push(`automation_id = ${param(toText(filter.automationId))}`);
  const statuses = filter.statuses ?? [];
  if (statuses.length === 1) where.push(`status = ${param(statuses[0])}`);
  else if (statuses.length > 1) where.push(`status = ANY(${param(statuses)}::text[])`);
  if (filter.since !== undefined) where.push(`created_at >= ${param(filter.since)}::timestamptz`);
  if (filter.before !== undefined) where.push(`(created_at, id) < (${param(filter.before.createdAt)}::timestamptz, ${param(toText(filter.before.id))})`);
  const limit = param(Math.max(0, Math.floor(filter.limit)));
  return {
    text: `SELECT data::text AS data FROM agent_platform.runs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
    params,
  };
}

/** The members of `patch` a transition writes: those of `RUN_PATCH_FIELDS` that are not `undefined`. */
export function runPatchOf(patch: RunPatch): RunPatch {
  const written: Record<string, unknown> = {};
  for (const field of RUN_PATCH_FIELDS) {
    const value = patch[field];
    if (value !== undefined) written[field] = value;
  }
  return written as RunPatch;
}

export function runsRepository(sql: Sql): RunsRepository {
  return {
    async insertMany(records) {
      if (records.length === 0) return;
      // One statement, so a taken id (in the table or twice in the batch) inserts none of them;
      // guarded, so inside a transaction the failure does not abort it.
      try {
        await sql.guardedQuery(`${INSERT_RUNS} FROM jsonb_array_elements($1::jsonb) AS r(value)`, [toJsonb(records)]);
      } catch (error) {
        if (isUniqueViolation(error) || error instanceof StorageConflictError) {
          throw new StorageConflictError('A run with one of these ids already exists');
        }
        throw error;
      }
    },
    async get(orgId, id) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.runs WHERE id = $1 AND org_id = $2', [
        toText(id),
        toText(orgId),
      ]);
      return recordOf<RunRecord>(rows);
    },
    async listByAutomation(orgId, automationId, options) {
      return offsetPage<RunRecord>(
        sql,
        `SELECT (SELECT count(*) FROM agent_platform.runs WHERE org_id = $1 AND automation_id = $2)::int AS total,
                array(SELECT data::text FROM agent_platform.runs WHERE org_id = $1 AND automation_id = $2
                      ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4) AS items`,
        [toText(orgId), toText(automationId), ...limitOffset(options)],
      );
    },
    async listByOrg(orgId, filter) {
      const { text, params } = orgRunsQuery(orgId, filter);
      const { rows } = await sql.query<DataRow>(text, params);
      return recordsOf<RunRecord>(rows);
    },
    async listByStatus(status, limit) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.runs WHERE status = $1 ORDER BY created_at, id LIMIT $2', [
        toText(status),
        Math.max(0, Math.floor(limit)),
      ]);
      return recordsOf<RunRecord>(rows);
    },
    async listLive(orgId, automationId, concurrencyKey) {
      const { rows } =
        concurrencyKey === null
          ? await sql.query<DataRow>(LIST_LIVE.unkeyed, [toText(orgId), toText(automationId)])
          : await sql.query<DataRow>(LIST_LIVE.keyed, [toText(orgId), toText(automationId), toText(concurrencyKey)]);
      return recordsOf<RunRecord>(rows);
    },
    async queueSummary() {
      // Through the (status, created_at, id) index: finished runs are never read.
      const { rows } = await sql.query<{ status: string; org_id: string; n: number; oldest: string | Date | null }>(
        `SELECT status, org_id, count(*)::int AS n, min(created_at) AS oldest FROM agent_platform.runs
         WHERE status IN ('PENDING', 'RUNNING') GROUP BY status, org_id`,
      );
      let pending = 0;
      let oldest: number | null = null;
      const runningByOrg: Record<string, number> = {};
      for (const row of rows) {
        if (row.status === 'RUNNING') runningByOrg[row.org_id] = row.n;
        else {
          pending += row.n;
          const at = row.oldest === null ? null : new Date(row.oldest).getTime();
          if (at !== null && (oldest === null || at < oldest)) oldest = at;
        }
      }
      return { pending, oldestPendingAt: oldest === null ? null : new Date(oldest).toISOString(), runningByOrg };
    },
    async overview(orgId, query) {
      return runsOverview(sql, orgId, query);
    },
    async countCreatedSince(orgId, automationId, since) {
      const { rows } = await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM agent_platform.runs
         WHERE org_id = $1 AND automation_id = $2 AND created_at >= $3::timestamptz AND status NOT IN ('SKIPPED', 'CANCELLED')`,
        [toText(orgId), toText(automationId), since],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async transition(orgId, id, guard, patch) {
      const written = runPatchOf(patch);
      const lease = guard.leaseOwner === undefined ? '' : guard.leaseOwner === null ? LEASE_FREE : LEASE_HELD_BY;
      const { rows } = await sql.query<DataRow>(
        `UPDATE agent_platform.runs SET status = coalesce($4::text, status), ${runTimesFrom('$5::jsonb')}, data = data || $5::jsonb
         WHERE id = $1 AND org_id = $2 AND status = ANY($3::text[]) AND ${NOT_FINAL}${lease}
         RETURNING data::text AS data`,
        [
          toText(id),
          toText(orgId),
          guard.from.map(toText),
          written.status === undefined ? null : toText(written.status),
          toJsonb(written),
          ...(typeof guard.leaseOwner === 'string' ? [toText(guard.leaseOwner)] : []),
        ],
      );
      return recordOf<RunRecord>(rows);
    },
  };
}
