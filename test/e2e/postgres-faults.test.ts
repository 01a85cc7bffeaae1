/**
 * Fault tests of the reference server on PostgreSQL, against a throwaway cluster of
 * the test's own so the database can be stopped and started:
 * - SIGKILL under a stream of signed deliveries loses no delivery answered 2xx, nor its run;
 * - PostgreSQL stopped mid-stream: 503 answers (never a 2xx for something not stored), then
 *   recovery by itself when it returns;
 * - two server processes receiving the same delivery at once create its run once;
 * - several workers on one database never execute the same run twice.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgCluster, type PgCluster } from './support/pg-cluster.js';
import { apiClient } from './support/http-api.js';
import { startServer, startWorker, stopServer, type RunningServer } from './support/reference-server.js';

const KEY = 'e2e-faults-key-0123456789abcdef';
const SECRET_KEY = Buffer.alloc(32, 11).toString('base64');
const WEBHOOK_SECRET = 'faults-webhook-secret-0123';

let cluster: PgCluster;
const processes: RunningServer[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  cluster = await createPgCluster();
}, 60_000);

afterAll(async () => {
  for (const running of processes) if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
  cluster?.destroy();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** A fresh database on the cluster, and the server environment for it. */
async function database(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const name = `faults_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    DATABASE_URL: cluster.url.replace(/\/postgres$/, `/${name}`),
    AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
    AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
    AGENT_PLATFORM_AGENT_COMMAND: 'echo "ran $AGENT_PLATFORM_RUN_ID"',
    AGENT_PLATFORM_RUN_LEASE_SECONDS: '2',
    ...extra,
  };
}

async function server(env: Record<string, string>): Promise<RunningServer> {
  const running = await startServer('examples/server', env);
  processes.push(running);
  return running;
}

const api = (baseUrl: string) => apiClient(baseUrl, KEY);

/** A webhook source `ci` and an automation that every `build` event matches. */
async function setUp(baseUrl: string): Promise<string> {
  const call = api(baseUrl);
  expect(
    (await call('POST', '/api/automation/v1/webhooks', { name: 'CI', source: 'ci', webhook_secret: WEBHOOK_SECRET, delivery_id_header: 'X-Delivery' })).status,
  ).toBe(201);
  const automation = await call('POST', '/api/automation/v1', {
    name: 'builds',
    trigger: { type: 'event', source: 'ci', on: 'build' },
    instructions: 'look at the build',
  });
  expect(automation.status).toBe(201);
  return automation.json.id as string;
}

function send(baseUrl: string, deliveryId: string, seq: number): Promise<Response> {
  const body = JSON.stringify({ type: 'build', seq });
  return fetch(`${baseUrl}/api/automation/v1/events/acme/ci`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-delivery': deliveryId,
      'x-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`,
    },
  });
}

/** Concurrent senders posting fresh deliveries until `stop()`; what was answered, by status. */
function stream(baseUrl: string, senders = 6) {
  const acknowledged: string[] = [];
  const statuses: number[] = [];
  let running = true;
  let seq = 0;
  const loops = Array.from({ length: senders }, async () => {
    while (running) {
      const id = `d-${++seq}-${randomBytes(3).toString('hex')}`;
      try {
        const response = await send(baseUrl, id, seq);
        statuses.push(response.status);
        const body = (await response.json().catch(() => null)) as { delivery_id?: string } | null;
        if (response.status >= 200 && response.status < 300 && body?.delivery_id) acknowledged.push(body.delivery_id);
      } catch {
        statuses.push(0); // connection refused: the server is gone
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  });
  return {
    acknowledged,
    statuses,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached; last ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const allRuns = async (baseUrl: string, automationId: string) => {
  const runs: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = (await api(baseUrl)('GET', `/api/automation/v1/${automationId}/runs?limit=100&offset=${offset}`)).json;
    runs.push(...page.runs);
    if (runs.length >= page.total || page.runs.length === 0) return runs;
  }
};

describe('the reference server on PostgreSQL, under faults', { timeout: 180_000 }, () => {
  it('killed with SIGKILL under a stream of deliveries, loses none it acknowledged, nor their runs', async () => {
    const env = await database();
    const first = await server(env);
    const automationId = await setUp(first.baseUrl);
    const load = stream(first.baseUrl);
    await until(
      'deliveries flowing',
      async () => load.acknowledged.length,
      (count) => count >= 50,
    );
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    await load.stop();
    expect(load.acknowledged.length).toBeGreaterThanOrEqual(50);

    const second = await server(env);
    const call = api(second.baseUrl);
    for (const id of load.acknowledged) {
      const delivery = await call('GET', `/api/automation/v1/deliveries/${id}`);
      expect(delivery.status, id).toBe(200);
      expect(delivery.json.status).toBe('matched');
      expect(delivery.json.outcomes[0].run_id).toEqual(expect.any(String));
    }
    // Every run — pending, or left running by the killed process — completes after the restart.
    const runs = await until(
      'every run completed',
      () => allRuns(second.baseUrl, automationId),
      (list) => list.length > 0 && list.every((run) => run.status === 'COMPLETED'),
      90_000,
    );
    const runIds = new Set(runs.map((run) => run.id));
    for (const id of load.acknowledged) {
      const runId = (await call('GET', `/api/automation/v1/deliveries/${id}`)).json.outcomes[0].run_id;
      expect(runIds.has(runId)).toBe(true);
    }
    expect(await stopServer(second)).toBe(0);
  });

  it('answers 503 while PostgreSQL is down — never 2xx for what it did not store — and recovers by itself', async () => {
    const env = await database();
    const running = await server(env);
    await setUp(running.baseUrl);
    const load = stream(running.baseUrl, 4);
    await until(
      'deliveries flowing',
      async () => load.acknowledged.length,
      (count) => count >= 20,
    );
    cluster.stop();
    const before = load.statuses.length;
    try {
      await until(
        '503 answers',
        async () => load.statuses.slice(before).filter((status) => status === 503).length,
        (count) => count >= 3,
        60_000,
      );
    } catch (error) {
      // What the server said, for whoever reads a failure in CI.
      console.log('server output:', running.output.join('').slice(-4000), 'statuses since the stop:', JSON.stringify(load.statuses.slice(before)));
      throw error;
    }
    expect((await fetch(`${running.baseUrl}/ready`)).status).toBe(503);
    const acknowledgedWhileDown = load.acknowledged.length;
    cluster.start();
    await until(
      '2xx again',
      async () => load.acknowledged.length,
      (count) => count >= acknowledgedWhileDown + 20,
    );
    await load.stop();
    expect((await fetch(`${running.baseUrl}/ready`)).status).toBe(200);
    expect(load.statuses.filter((status) => status >= 500 && status !== 503)).toEqual([]);

    const call = api(running.baseUrl);
    for (const id of load.acknowledged) expect((await call('GET', `/api/automation/v1/deliveries/${id}`)).status, id).toBe(200);
    expect(await stopServer(running)).toBe(0);
  });

  it('two servers receiving the same deliveries at once create each run once', async () => {
    const env = await database();
    const a = await server(env);
    const b = await server(env);
    const automationId = await setUp(a.baseUrl);
    const ids = Array.from({ length: 20 }, (_, i) => `same-${i}`);
    const answers = await Promise.all(ids.flatMap((id, seq) => [send(a.baseUrl, id, seq), send(b.baseUrl, id, seq), send(a.baseUrl, id, seq)]));
    expect(answers.map((answer) => answer.status).every((status) => status === 200)).toBe(true);
    const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as { duplicate?: boolean; runs_created: string[] }[];
    expect(bodies.filter((body) => !body.duplicate)).toHaveLength(20);
    expect(bodies.flatMap((body) => body.runs_created)).toHaveLength(20);
    const runs = await until(
      'runs completed',
      () => allRuns(a.baseUrl, automationId),
      (list) => list.length === 20 && list.every((run) => run.status === 'COMPLETED'),
    );
    expect(new Set(runs.map((run) => run.delivery_id)).size).toBe(20);
    expect(await stopServer(a)).toBe(0);
    expect(await stopServer(b)).toBe(0);
  });

  it('an API-only server and two workers share the runs: each runs exactly once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'faults-workers-'));
    dirs.push(dir);
    const log = path.join(dir, 'executions.log');
    const env = await database({ AGENT_PLATFORM_AGENT_COMMAND: `echo "$AGENT_PLATFORM_RUN_ID" >> '${log}'; sleep 0.2` });
    const running = await server({ ...env, AGENT_PLATFORM_EXECUTOR: 'off' });
    const workers = [await startWorker('examples/server', env), await startWorker('examples/server', env)];
    processes.push(...workers);
    const call = api(running.baseUrl);
    const automationId = await setUp(running.baseUrl);
    const dispatched: string[] = [];
    for (let i = 0; i < 30; i++) dispatched.push((await call('POST', `/api/automation/v1/${automationId}/dispatch`, { payload: { i } })).json.id);
    await until(
      'runs completed',
      () => allRuns(running.baseUrl, automationId),
      (list) => list.length === 30 && list.every((run) => run.status === 'COMPLETED'),
    );
    const executions = readFileSync(log, 'utf8').trim().split('\n').sort();
    expect(executions).toEqual([...dispatched].sort());
    for (const worker of workers) expect(worker.output.join('')).toMatch(/worker ready/);
    for (const worker of workers) expect(await stopServer(worker)).toBe(0);
    expect(await stopServer(running)).toBe(0);
  });
});
