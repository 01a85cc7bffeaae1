/**
 * Postgres ingest: deliveries per second of in-process ingest with PostgreSQL
 * storage — signature, parse, dedup claim, matching, and the delivery + outcomes + run
 * transaction, each committed before the answer — against `pgbench -b simple-update` TPS on the
 * same server with the same number of clients, in the same run. Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source ingest-postgres.ts [seconds] [clients]
 *
 * Then the same ingest on embedded PGlite (one in-process connection, a throwaway data directory),
 * reported on its own: there is no pgbench for PGlite to compare with.
 *
 * Uses the server at BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * creates and drops its own databases.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createAesGcmSecretBox, createAgentPlatform, signatureHeaders } from '@agent-platform/core';
import { createPGliteStorage, createPostgresStorage } from '@agent-platform/storage-postgres';
import type { StorageAdapter } from '@agent-platform/core';

const seconds = Number(process.argv[2] ?? 10);
const clients = Number(process.argv[3] ?? 8);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRET = 'bench-secret-0123456789';

async function withDatabase<T>(use: (url: string) => Promise<T>): Promise<T> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await use(url.toString());
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}

function pgbenchTps(url: string): number {
  const target = new URL(url);
  const args = ['-h', target.hostname, '-p', target.port || '5432', '-U', target.username || 'postgres'];
  const database = target.pathname.slice(1);
  execFileSync('pgbench', [...args, '-i', '-q', '-s', '10', database], { stdio: 'ignore' });
  const output = execFileSync('pgbench', [...args, '-b', 'simple-update', '-c', String(clients), '-j', '2', '-T', String(seconds), database], {
    encoding: 'utf8',
  });
  const match = /tps = ([\d.]+) \(without initial connection time\)/.exec(output) ?? /tps = ([\d.]+)/.exec(output);
  if (!match?.[1]) throw new Error(`could not read pgbench's TPS:\n${output}`);
  return Number(match[1]);
}

async function platformDeliveries(storage: StorageAdapter): Promise<{ perSecond: number; p99: number; matched: number }> {
  const platform = createAgentPlatform({
    storage,
    secrets: createAesGcmSecretBox({ keys: { k: Buffer.alloc(32, 3).toString('base64') } }),
    publicUrl: 'http://localhost',
  });
  const me = { userId: 'alice', orgId: 'acme' };
  await platform.webhooks.register(me, { name: 'bench', source: 'bench', webhook_secret: SECRET });
  // Ten automations on the source; one matches each event (a run per delivery).
  for (let i = 0; i < 10; i++) {
    await platform.automations.create(me, {
      name: `a${i}`,
      trigger: { type: 'event', source: 'bench', on: i === 0 ? 'build.finished' : `other.${i}` },
      instructions: 'go',
    });
  }
  const body = Buffer.from(JSON.stringify({ type: 'build.finished', build: { id: 1, branch: 'main', log: 'x'.repeat(1000) } }));
  const headers = signatureHeaders({ scheme: 'hmac-sha256', secret: SECRET, body, now: new Date() });
  let sequence = 0;
  let matched = 0;
  const latencies: number[] = [];
  const client = async (until: number, record: boolean) => {
    while (performance.now() < until) {
      const began = performance.now();
      const result = await platform.events.ingest('acme', 'bench', {
        headers: { ...headers, 'webhook-id': `msg_${sequence++}_${randomBytes(4).toString('hex')}` },
        body,
      });
      if (record) {
        latencies.push(performance.now() - began);
        matched += result.matched;
      }
    }
  };
  const warm = performance.now() + 2000;
  await Promise.all(Array.from({ length: clients }, () => client(warm, false)));
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, () => client(started + seconds * 1000, true)));
  const elapsed = (performance.now() - started) / 1000;
  await platform.stop();
  await storage.close();
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / elapsed, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0, matched: matched / latencies.length };
}

const ingest = await withDatabase(async (url) => platformDeliveries(await createPostgresStorage({ connectionString: url, pool: { max: clients + 2 } })));
const tps = await withDatabase(async (url) => pgbenchTps(url));
const version = execFileSync('psql', [adminUrl, '-Atc', 'show server_version'], { encoding: 'utf8' }).trim();
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-pglite-'));
const embedded = await platformDeliveries(await createPGliteStorage({ dataDir })).finally(() => rmSync(dataDir, { recursive: true, force: true }));
console.log(
  `ingest-postgres (PostgreSQL ${version}, ${clients} clients, ${seconds} s): platform ${Math.round(ingest.perSecond)} deliveries/s (p99 ${ingest.p99.toFixed(1)} ms, ${ingest.matched.toFixed(2)} runs each) | pgbench simple-update ${Math.round(tps)} TPS | ratio ${(ingest.perSecond / tps).toFixed(2)} (target >= 0.50) | PGlite ${Math.round(embedded.perSecond)} deliveries/s (p99 ${embedded.p99.toFixed(1)} ms)`,
);
