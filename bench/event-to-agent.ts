/**
 * Event to agent start: the time from a signed event reaching ingest to the agent's
 * process running in its sandbox (its first line of output reaching the platform), p50 and p99,
 * one event at a time, in two set-ups:
 * - one process: memory storage, the process runtime, the executor in the same process;
 * - API → worker on PostgreSQL: ingest in this process (API only) and the executor in a worker
 *   child process, over one database; the worker hears of the new run through LISTEN/NOTIFY.
 * Prints one line.
 *
 *   npx tsx --conditions=agent-platform-source event-to-agent.ts [events]
 *
 * Uses the server at BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * creates and drops its own database.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { percentile } from './support/stats.js';
import { withTempDatabase } from './support/temp-database.js';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  signatureHeaders,
  type AgentPlatform,
  type AgentRunner,
  type StorageAdapter,
} from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createPostgresStorage } from '@agent-platform/storage-postgres';

const events = Number(process.argv[2] ?? 60);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRET = 'bench-secret-0123456789';
const SECRET_KEY = Buffer.alloc(32, 3).toString('base64');
const me = { userId: 'alice', orgId: 'acme' };

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
const clock = () => performance.timeOrigin + performance.now();

/** The command runner, reporting when each run's agent first spoke (its process is running). */
function timedAgent(onStart: (runId: string, at: number) => void): AgentRunner {
  const inner = createCommandAgentRunner({ command: 'echo started' });
  return {
    async *run(input) {
      let first = true;
      for await (const event of inner.run(input)) {
        if (first && input.runId) onStart(input.runId, clock());
        first = false;
        yield event;
      }
    },
  };
}

function engine(storage: StorageAdapter, agent?: AgentRunner): AgentPlatform {
  return createAgentPlatform({
    storage,
    secrets: createAesGcmSecretBox({ keys: { k: SECRET_KEY } }),
    publicUrl: 'http://localhost',
    ...(agent ? { runtime: createProcessRuntime(), agent } : {}),
    executor: { concurrency: 8, perOrgConcurrency: 8 },
  });
}

async function prepare(platform: AgentPlatform): Promise<void> {
  await platform.webhooks.register(me, { name: 'bench', source: 'bench', webhook_secret: SECRET });
  await platform.automations.create(me, { name: 'builds', trigger: { type: 'event', source: 'bench', on: 'build' }, instructions: 'go' });
}

/** Sends `events` events one at a time, each once the previous one's agent started; the latencies. */
async function measure(api: AgentPlatform, started: (runId: string) => Promise<number>): Promise<number[]> {
  const latencies: number[] = [];
  for (let n = 0; n < events + 5; n++) {
    const body = Buffer.from(JSON.stringify({ type: 'build', n }));
    const headers = { ...signatureHeaders({ scheme: 'hmac-sha256', secret: SECRET, body, now: new Date() }), 'webhook-id': `evt_${n}` };
    const sent = clock();
    const result = await api.events.ingest('acme', 'bench', { headers, body });
    const at = await started(result.runs_created[0]!);
    if (n >= 5) latencies.push(at - sent); // the first five warm up
  }
  return latencies;
}

/** Resolves each run's start time once reported, whichever comes first. */
function startBook() {
  const times = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  return {
    report(runId: string, at: number) {
      times.set(runId, at);
      waiting.get(runId)?.(at);
    },
    started(runId: string): Promise<number> {
      const at = times.get(runId);
      return at !== undefined ? Promise.resolve(at) : new Promise((resolve) => waiting.set(runId, resolve));
    },
  };
}

async function oneProcess(): Promise<number[]> {
  const book = startBook();
  const platform = engine(createMemoryStorage(), timedAgent(book.report));
  await platform.start();
  await prepare(platform);
  try {
    return await measure(platform, book.started);
  } finally {
    await platform.stop();
  }
}

async function apiToWorker(): Promise<number[]> {
  return withTempDatabase(adminUrl, async (url) => {
    const api = engine(await createPostgresStorage({ connectionString: url }));
    await api.start({ executeRuns: false });
    await prepare(api);
    const book = startBook();
    const worker = fork(fileURLToPath(import.meta.url), ['--worker', url], { execArgv: process.execArgv });
    worker.on('message', (message: { ready?: boolean; runId?: string; at?: number }) => {
      if (message.runId && message.at) book.report(message.runId, message.at);
    });
    await new Promise<void>((resolve) => worker.on('message', (message: { ready?: boolean }) => message.ready && resolve()));
    try {
      return await measure(api, book.started);
    } finally {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker.once('exit', resolve));
      await api.stop();
    }
  });
}

async function workerMain(url: string): Promise<void> {
  const platform = engine(
    await createPostgresStorage({ connectionString: url }),
    timedAgent((runId, at) => process.send?.({ runId, at })),
  );
  await platform.start();
  process.send?.({ ready: true });
  process.once('SIGTERM', () => void platform.stop().then(() => process.exit(0)));
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

if (process.argv[2] === '--worker') {
  await workerMain(process.argv[3]!);
} else {
  const local = await oneProcess();
  const split = await apiToWorker();
  console.log(
    `event-to-agent (${events} events, one at a time): one process (memory, process runtime) p50 ${ms(percentile(local, 50))} p99 ${ms(percentile(local, 99))} (target p50 <= 50 ms)` +
      ` | API -> worker process on PostgreSQL p50 ${ms(percentile(split, 50))} p99 ${ms(percentile(split, 99))} (target p50 <= 250 ms)`,
  );
}
