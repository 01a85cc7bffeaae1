/**
 * Matching freshness across processes: what keeping every process's matching index
 * within 1 s of an automation change costs on PostgreSQL, measured both ways the issue weighs:
 * - the change feed (what the platform does): a NOTIFY per automation change, nothing per event.
 *   Measured: the time from an automation created through engine A (its own pool) to engine B's
 *   listener hearing of it, p50 / p99 over 50 changes;
 * - a version read per event (the alternative): one more indexed point read on every ingest.
 *   Measured: ingest deliveries/s with and without such a read, same clients, same run.
 * Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source matching-freshness.ts [seconds] [clients]
 */
import { randomBytes } from 'node:crypto';
import { percentile } from './support/stats.js';
import { withTempDatabase } from './support/temp-database.js';
import { createAesGcmSecretBox, createAgentPlatform, signatureHeaders, type AgentPlatform } from '@agent-platform/core';
import { createPostgresStorage } from '@agent-platform/storage-postgres';

const seconds = Number(process.argv[2] ?? 5);
const clients = Number(process.argv[3] ?? 8);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRET = 'bench-secret-0123456789';
const me = { userId: 'alice', orgId: 'acme' };

async function engine(url: string): Promise<AgentPlatform> {
  return createAgentPlatform({
    storage: await createPostgresStorage({ connectionString: url, pool: { max: clients + 2 } }),
    secrets: createAesGcmSecretBox({ keys: { k: Buffer.alloc(32, 3).toString('base64') } }),
    publicUrl: 'http://localhost',
  });
}

/** Automation created through A → B's feed listener hears it; milliseconds per change. */
async function propagation(a: AgentPlatform, b: AgentPlatform): Promise<number[]> {
  const heard = new Map<string, number>();
  const unsubscribe = await b.storage.changes.subscribe((change) => {
    if (change.type === 'automations.changed') heard.set(change.source, performance.now());
  });
  const latencies: number[] = [];
  for (let n = 0; n < 55; n++) {
    const source = `src-${n}`;
    const began = performance.now();
    await a.automations.create(me, { name: `a${n}`, trigger: { type: 'event', source, on: 'x' }, instructions: 'go' });
    while (!heard.has(source)) await new Promise((resolve) => setTimeout(resolve, 0.2));
    if (n >= 5) latencies.push(heard.get(source)! - began);
  }
  await unsubscribe();
  return latencies;
}

/** Ingest deliveries/s from `clients` concurrent senders; with `versionRead`, one more point read each. */
async function ingestRate(platform: AgentPlatform, versionRead: boolean): Promise<number> {
  const body = Buffer.from(JSON.stringify({ type: 'build.finished', log: 'x'.repeat(1000) }));
  const headers = signatureHeaders({ scheme: 'hmac-sha256', secret: SECRET, body, now: new Date() });
  const { id } = (await platform.automations.list(me, { limit: 1, offset: 0 })).automations[0]!;
  let count = 0;
  const client = async (until: number) => {
    while (performance.now() < until) {
      // What a per-(org, source) version check would add: an indexed read of one row.
      if (versionRead) await platform.storage.automations.get('acme', id);
      await platform.events.ingest('acme', 'bench', { headers: { ...headers, 'webhook-id': `msg_${randomBytes(6).toString('hex')}` }, body });
      count += 1;
    }
  };
  await Promise.all(Array.from({ length: clients }, () => client(performance.now() + 1000)));
  count = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, () => client(started + seconds * 1000)));
  return count / ((performance.now() - started) / 1000);
}

await withTempDatabase(adminUrl, async (url) => {
  const a = await engine(url);
  const b = await engine(url);
  await b.start();
  const latencies = await propagation(a, b);
  await a.webhooks.register(me, { name: 'bench', source: 'bench', webhook_secret: SECRET });
  await a.automations.create(me, { name: 'builds', trigger: { type: 'event', source: 'bench', on: 'build.finished' }, instructions: 'go' });
  const rates: Record<'plain' | 'versioned', number[]> = { plain: [], versioned: [] };
  for (let round = 0; round < 2; round++) {
    rates.plain.push(await ingestRate(a, false));
    rates.versioned.push(await ingestRate(a, true));
  }
  await a.stop();
  await b.stop();
  const plain = Math.max(...rates.plain);
  const versioned = Math.max(...rates.versioned);
  console.log(
    `matching-freshness (PostgreSQL, ${clients} clients, ${seconds} s x2): change feed — automation change heard by another engine p50 ${percentile(latencies, 50).toFixed(1)} ms p99 ${percentile(latencies, 99).toFixed(1)} ms, no cost per event` +
      ` | version read per event — ingest ${Math.round(versioned)} deliveries/s vs ${Math.round(plain)} without (ratio ${(versioned / plain).toFixed(2)})`,
  );
});
