/**
 * The run queue over the runs table, for PostgreSQL and PGlite alike.
 *
 * - `claim` runs in one READ COMMITTED transaction that first takes a transaction-level advisory
 *   lock: claims from every process queue on it, so the RUNNING counts a claim reads (each
 *   statement sees what committed before it, the previous claim included) stay true until it
 *   commits, and the per-org and global limits hold across processes. Candidates are read oldest
 *   first with `FOR UPDATE SKIP LOCKED` (a run a transition is changing right now is passed over,
 *   not waited for), in rounds that leave out the orgs that reached their limit, so such an org
 *   never holds back other orgs' runs queued behind it. A run with a concurrency key is a
 *   candidate only while no run of its automation with that key is RUNNING (checked through the
 *   partial index of live runs by key; the lock keeps it true until commit), and the claim takes
 *   at most one run per (automation, key). One UPDATE then writes what core's `claimPatch` writes.
 * - `renew` is one UPDATE guarded on RUNNING and the lease owner.
 * - `recover` locks the lapsed runs with `FOR UPDATE SKIP LOCKED` and writes core's
 *   `recoveryPatch` in one UPDATE: a run another process is recovering (or its owner renewing)
 *   at the same moment is skipped, and once that commits it no longer matches.
 * - `complete` and `release` are `runs.transition`s (core's `leasedRunOps`).
 *
 * Times come from the caller (`request.now`, `now`), never from the database's clock.
 * @module
 */
import { claimPatch, leasedRunOps, leaseLapsed, recoveryPatch } from '@agent-platform/core/adapter-kit';
import type { ClaimRequest, RunPatch, RunQueue, RunRecord, RunRef, RunsRepository } from '@agent-platform/core';
import { runPatchOf, runTimesFrom } from './repositories/runs.js';
import { recordsOf, type DataRow } from './repositories/rows.js';
import { fromJsonb, fromText, toJsonb, toText } from './sql/json.js';
import type { Backend, Sql } from './sql/sql.js';

/** An arbitrary constant naming the claim lock; the same in every process ("agent-platform claims"). */
export const CLAIM_LOCK = 4_612_871_337_207_412;

/** At most this many candidate reads per claim, each after the orgs that filled up were left out. */
const MAX_ROUNDS = 8;

/**
 * Candidates read beyond the free slots, which a per-org limit or a concurrency key taken earlier
 * in the claim may pass over. (A claim whose first pick has a long backlog of PENDING runs with
 * the same key may fill fewer slots than it could; the next claim's SQL leaves that key out.)
 */
const ROUND_SLACK = 32;
const MAX_ROUND = 1_000;

export const COUNT_RUNNING = `SELECT org_id, count(*)::int AS n FROM agent_platform.runs WHERE status = 'RUNNING' GROUP BY org_id`;

/**
 * PENDING runs due by $1, of orgs not in $2, oldest first; `after` continues past ($4, $5). A run
 * with a concurrency key is left out while a run of its automation with the same key is RUNNING.
 */
function candidates(after: boolean): string {
  return `SELECT data::text AS data FROM agent_platform.runs AS c
   WHERE status = 'PENDING' AND (data->>'not_before' IS NULL OR (data->>'not_before')::timestamptz <= $1::timestamptz)
     AND org_id <> ALL($2::text[])${after ? ' AND (created_at, id) > ($4::timestamptz, $5)' : ''}
     AND (c.data->>'concurrency_key' IS NULL OR NOT EXISTS (
       SELECT 1 FROM agent_platform.runs AS busy
        WHERE busy.org_id = c.org_id AND busy.automation_id = c.automation_id AND busy.status = 'RUNNING'
          AND (busy.data->>'concurrency_key') = (c.data->>'concurrency_key')))
   ORDER BY created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED`;
}

/** Writes a patch per run, `[{ id, patch }]` in $1, on the runs still in status $2. */
const APPLY_PATCHES = `UPDATE agent_platform.runs AS r SET status = coalesce(p.patch->>'status', r.status), ${runTimesFrom('p.patch', 'r.')}, data = r.data || p.patch
   FROM jsonb_to_recordset($1::jsonb) AS p(id text, patch jsonb)
   WHERE r.id = p.id AND r.status = $2
   RETURNING r.data::text AS data`;

const RENEW = `UPDATE agent_platform.runs AS r SET data = r.data || jsonb_build_object('lease_expires_at', $4::text)
   FROM unnest($1::text[], $2::text[]) AS t(org_id, id)
   WHERE r.id = t.id AND r.org_id = t.org_id AND r.status = 'RUNNING' AND r.data->>'lease_owner' = $3
   RETURNING r.org_id, r.id`;

const LAPSED = `SELECT data::text AS data FROM agent_platform.runs
   WHERE status = 'RUNNING' AND (data->>'lease_expires_at' IS NULL OR (data->>'lease_expires_at')::timestamptz <= $1::timestamptz)
   ORDER BY created_at, id FOR UPDATE SKIP LOCKED`;

/** The statements the queue sends, for the query-plan test. */
export const RUN_QUEUE_STATEMENTS = { COUNT_RUNNING, APPLY_PATCHES, RENEW, LAPSED, candidates } as const;

export function createRunQueue(backend: Pick<Backend, 'sql' | 'transaction'>, runs: Pick<RunsRepository, 'transition'>): RunQueue {
  return {
    claim(request) {
      const max = Math.floor(request.max);
      if (!(max > 0) || !(request.limits.perOrg > 0) || !(request.limits.global > 0)) return Promise.resolve([]);
      return backend.transaction((sql) => claimIn(sql, request, max), 'read-committed');
    },

    async renew(owner, refs, leaseExpiresAt) {
      if (refs.length === 0) return [];
      const { rows } = await backend.sql.query<{ org_id: string; id: string }>(RENEW, [
        refs.map((run) => toText(run.orgId)),
        refs.map((run) => toText(run.id)),
        toText(owner),
        toText(leaseExpiresAt),
      ]);
      // Each run renewed once, however often `refs` names it.
      return rows.map((row) => ({ orgId: fromText(row.org_id), id: fromText(row.id) }));
    },

    recover(now, maxAttempts) {
      return backend.transaction(async (sql) => {
        const { rows } = await sql.query<DataRow>(LAPSED, [now.toISOString()]);
        const lapsed = recordsOf<RunRecord>(rows).filter((run) => leaseLapsed(run, now));
        const written = await applyPatches(
          sql,
          'RUNNING',
          lapsed.map((run) => [run, recoveryPatch(run, now, maxAttempts)]),
        );
        return {
          requeued: written.filter((run) => run.status === 'PENDING').map(refOf),
          failed: written.filter((run) => run.status === 'FAILED').map(refOf),
        };
      }, 'read-committed');
    },

    ...leasedRunOps(runs),
  };
}

async function claimIn(sql: Sql, request: ClaimRequest, max: number): Promise<RunRecord[]> {
  const { perOrg, global } = request.limits;
  // First, before anything is read: the lock is what makes the counts below hold until commit.
  await sql.query(`SELECT pg_advisory_xact_lock(${CLAIM_LOCK})`);
  const running = new Map<string, number>();
  let total = 0;
  if (Number.isFinite(perOrg) || Number.isFinite(global)) {
    const { rows } = await sql.query<{ org_id: string; n: number }>(COUNT_RUNNING);
    for (const row of rows) {
      running.set(fromText(row.org_id), Number(row.n));
      total += Number(row.n);
    }
  }
  const slots = Math.min(max, global - total);
  const full = new Set([...running].filter(([, n]) => n >= perOrg).map(([org]) => org));
  const picked: RunRecord[] = [];
  // The (automation, key) pairs taken so far: a second run of one waits for the first to finish.
  const pickedKeys = new Set<string>();
  let last: RunRecord | undefined;
  for (let round = 0; round < MAX_ROUNDS && picked.length < slots; round += 1) {
    const need = slots - picked.length;
    // Read beyond the free slots: a per-org limit or a concurrency key taken this claim may pass
    // some candidates over.
    const limit = Math.min(need + ROUND_SLACK, MAX_ROUND);
    const params: unknown[] = [request.now.toISOString(), [...full].map(toText), limit];
    if (last) params.push(last.created_at, toText(last.id));
    const { rows } = await sql.query<DataRow>(candidates(last !== undefined), params);
    const found = recordsOf<RunRecord>(rows);
    for (const run of found) {
      if (picked.length >= slots) break;
      const count = running.get(run.org_id) ?? 0;
      if (count >= perOrg) continue;
      const key = typeof run.concurrency_key === 'string' ? JSON.stringify([run.automation_id, run.concurrency_key]) : null;
      if (key !== null && pickedKeys.has(key)) continue;
      picked.push(run);
      if (key !== null) pickedKeys.add(key);
      running.set(run.org_id, count + 1);
      if (count + 1 >= perOrg) full.add(run.org_id);
    }
    last = found.at(-1);
    // A short read means nothing else is claimable now.
    if (found.length < limit) break;
  }
  return applyPatches(
    sql,
    'PENDING',
    picked.map((run) => [run, claimPatch(run, request)]),
  );
}

/**
 * Writes each run's patch in one UPDATE, on the runs still in `from` (the caller holds their row
 * locks), and returns them as written, in the order given.
 */
async function applyPatches(sql: Sql, from: RunRecord['status'], patches: readonly (readonly [RunRecord, RunPatch])[]): Promise<RunRecord[]> {
  if (patches.length === 0) return [];
  const { rows } = await sql.query<DataRow>(APPLY_PATCHES, [toJsonb(patches.map(([run, patch]) => ({ id: run.id, patch: runPatchOf(patch) }))), from]);
  const written = new Map(
    rows.map((row) => {
      const run = fromJsonb<RunRecord>(row.data);
      return [run.id, run] as const;
    }),
  );
  return patches.flatMap(([run]) => written.get(run.id) ?? []);
}

function refOf(run: RunRecord): RunRef {
  return { orgId: run.org_id, id: run.id };
}
