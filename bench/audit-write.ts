/**
 * What an audit entry costs the change it records: the time of `AuditLog.record` (build the
 * entry, hash it, append it after the org's last one), p50 and p99, one after another and 8 at a
 * time into one org, on memory storage and on PostgreSQL (its per-org advisory lock and insert).
 * Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source audit-write.ts [entries]
 *
 * Uses the server at BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * creates and drops its own database.
 */
import { AuditLog, noopLogger, randomIdGenerator, systemClock, type StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createPostgresStorage } from '@agent-platform/storage-postgres';
import { percentile } from './support/stats.js';
import { withTempDatabase } from './support/temp-database.js';

const entries = Number(process.argv[2] ?? 2000);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const actor = { kind: 'key' as const, id: 'alice', role: 'owner' as const };

async function measure(storage: StorageAdapter, parallel: number): Promise<number[]> {
  const log = new AuditLog({ storage, clock: systemClock, ids: randomIdGenerator, logger: noopLogger });
  const times: number[] = [];
  const one = async (n: number) => {
    const began = performance.now();
    await log.record('acme', actor, { action: 'automation.updated', target: { type: 'automation', id: `auto_${n}` }, details: { fields: ['name'] } });
    times.push(performance.now() - began);
  };
  for (let n = 0; n < entries; n += parallel) await Promise.all(Array.from({ length: parallel }, (_, k) => one(n + k)));
  return times.slice(Math.floor(times.length / 10)); // the first tenth warms up
}

const figures = (times: number[]) => `p50 ${percentile(times, 50).toFixed(2)} ms p99 ${percentile(times, 99).toFixed(2)} ms`;

const memory = createMemoryStorage();
const memorySerial = await measure(memory, 1);
const memoryParallel = await measure(memory, 8);
await memory.close();

await withTempDatabase(adminUrl, async (url) => {
  const postgres = await createPostgresStorage({ connectionString: url });
  const pgSerial = await measure(postgres, 1);
  const pgParallel = await measure(postgres, 8);
  await postgres.close();
  console.log(
    `audit-write (${entries} entries into one org): memory ${figures(memorySerial)}, 8 at a time ${figures(memoryParallel)}` +
      ` | PostgreSQL ${figures(pgSerial)}, 8 at a time ${figures(pgParallel)}`,
  );
});
