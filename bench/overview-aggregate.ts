/**
 * What the console's overview costs the storage: `runs.overview` (counts per bucket and status,
 * p50/p95 duration, the queue, the failing automations) over an org's 100,000 runs spread over
 * 30 days, beside another org's as many, p50 and p99 — on PostgreSQL (the covering index
 * `runs_by_org`, after the table is vacuumed as autovacuum would) and on memory storage. Three
 * periods: the last day by hour (~3,300 runs), the last 7 days by hour (~23,000) and the
 * 30 days by day (all 100,000). Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source overview-aggregate.ts [runs] [queries]
 *
 * Uses the server at BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * creates and drops its own database.
 */
import type { OverviewBucket, RunRecord, RunStatus, StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createPostgresStorage } from '@agent-platform/storage-postgres';
import pg from 'pg';
import { percentile } from './support/stats.js';
import { withTempDatabase } from './support/temp-database.js';

const runs = Number(process.argv[2] ?? 100_000);
const queries = Number(process.argv[3] ?? 50);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DAY = 86_400_000;
const now = Date.parse('2026-01-31T00:00:00.000Z');
const PERIODS: { label: string; days: number; bucket: OverviewBucket }[] = [
  { label: '1 day by hour', days: 1, bucket: 'hour' },
  { label: '7 days by hour', days: 7, bucket: 'hour' },
  { label: '30 days by day', days: 30, bucket: 'day' },
];

/** A deterministic spread of statuses: mostly COMPLETED, some FAILED, a few of the rest. */
function statusOf(n: number): RunStatus {
  const r = n % 100;
  return r < 70 ? 'COMPLETED' : r < 85 ? 'FAILED' : r < 90 ? 'CANCELLED' : r < 95 ? 'SKIPPED' : r < 98 ? 'PENDING' : 'RUNNING';
}

function runOf(orgId: string, n: number): RunRecord {
  const created = now - 30 * DAY + Math.floor((n / runs) * 30 * DAY);
  const status = statusOf(n);
  const started = status === 'PENDING' || status === 'SKIPPED' ? null : created + 1_000 + (n % 7) * 1_000;
  const done = status === 'PENDING' || status === 'RUNNING' ? null : (started ?? created) + 5_000 + ((n * 7919) % 600_000);
  return {
    id: `run_${orgId}_${String(n).padStart(7, '0')}`,
    org_id: orgId,
    automation_id: `auto_${n % 50}`,
    delivery_id: null,
    trigger: 'manual',
    event_key: null,
    status,
    attempt: status === 'PENDING' ? 0 : 1,
    conversation_id: null,
    sandbox_id: null,
    error_detail: status === 'FAILED' ? 'the agent gave up' : null,
    created_by: 'alice',
    created_at: new Date(created).toISOString(),
    started_at: started === null ? null : new Date(started).toISOString(),
    completed_at: done === null ? null : new Date(done).toISOString(),
    dispatch_payload_json: '{"ref":"refs/heads/main"}',
  };
}

async function seed(storage: StorageAdapter): Promise<void> {
  for (const orgId of ['acme', 'globex']) {
    for (let at = 0; at < runs; at += 1_000) {
      await storage.runs.insertMany(Array.from({ length: Math.min(1_000, runs - at) }, (_, i) => runOf(orgId, at + i)));
    }
  }
}

async function measure(storage: StorageAdapter): Promise<string> {
  const lines: string[] = [];
  for (const period of PERIODS) {
    const query = { from: new Date(now - period.days * DAY).toISOString(), to: new Date(now).toISOString(), bucket: period.bucket };
    const times: number[] = [];
    let counted = 0;
    for (let n = 0; n < queries + 5; n++) {
      const began = performance.now();
      const overview = await storage.runs.overview('acme', query);
      if (n >= 5) times.push(performance.now() - began);
      counted = Object.values(overview.totals).reduce((sum, each) => sum + (each ?? 0), 0);
    }
    lines.push(`${period.label} (${counted} runs) p50 ${percentile(times, 50).toFixed(1)} ms p99 ${percentile(times, 99).toFixed(1)} ms`);
  }
  return lines.join('; ');
}

const memory = createMemoryStorage();
await seed(memory);
const memoryLine = await measure(memory);
await memory.close();
await withTempDatabase(adminUrl, async (url) => {
  const postgres = await createPostgresStorage({ connectionString: url });
  await seed(postgres);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('VACUUM ANALYZE agent_platform.runs');
  await client.end();
  const postgresLine = await measure(postgres);
  await postgres.close();
  console.log(
    `overview-aggregate (${runs.toLocaleString('en')} runs per org, 2 orgs, ${queries} queries each): PostgreSQL ${postgresLine} | memory ${memoryLine}`,
  );
});
