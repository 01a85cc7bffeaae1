/**
 * Reference-server processes sharing one PostgreSQL database:
 * - an automation created, changed or deleted through one server is used by another server's
 *   ingest within 1 s (the change feed, LISTEN/NOTIFY), even where that server had the source's
 *   automations cached already;
 * - with a per-org limit of 1, two worker processes never run two of the org's runs at once.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_URL, admin } from './support/run-nodes.js';
import { apiClient } from './support/http-api.js';
import { startServer, startWorker, stopServer, type RunningServer } from './support/reference-server.js';

const KEY = 'e2e-processes-key-0123456789abcdef';
const SECRET_KEY = Buffer.alloc(32, 5).toString('base64');
const WEBHOOK_SECRET = 'processes-webhook-secret-0123';

const processes: RunningServer[] = [];
const databases: string[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const running of processes) if (running.child.exitCode === null) running.child.kill('SIGKILL');
  for (const name of databases) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function environment(extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const name = `ap_procs_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  databases.push(name);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    DATABASE_URL: url.toString(),
    AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}`,
    AGENT_PLATFORM_SECRET_KEY: SECRET_KEY,
    AGENT_PLATFORM_AGENT_COMMAND: 'echo ran',
    ...extra,
  };
}

async function server(env: Record<string, string>): Promise<RunningServer> {
  const running = await startServer('examples/server', env);
  processes.push(running);
  return running;
}

const api = (baseUrl: string) => apiClient(baseUrl, KEY);

async function send(baseUrl: string, type: string): Promise<{ matched: number }> {
  const body = JSON.stringify({ type, nonce: randomBytes(6).toString('hex') });
  const response = await fetch(`${baseUrl}/api/automation/v1/events/acme/ci`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { matched: number };
}

/** Sends events to `baseUrl` every 25 ms until one's match count satisfies `done`; the time it took. */
async function timeUntil(baseUrl: string, done: (matched: number) => boolean, ms = 5_000): Promise<number> {
  const began = Date.now();
  for (;;) {
    if (done((await send(baseUrl, 'build')).matched)) return Date.now() - began;
    if (Date.now() - began > ms) throw new Error(`not seen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('reference servers sharing PostgreSQL', { timeout: 120_000 }, () => {
  it('an automation created, disabled, re-enabled and deleted through one server is used by another’s ingest within 1 s', async () => {
    const env = await environment({ AGENT_PLATFORM_EXECUTOR: 'off' });
    const [a, b] = [await server(env), await server(env)];
    const callA = api(a.baseUrl);
    expect((await callA('POST', '/api/automation/v1/webhooks', { name: 'CI', source: 'ci', webhook_secret: WEBHOOK_SECRET })).status).toBe(201);
    // B has the source's (empty) automation list cached before anything changes.
    expect((await send(b.baseUrl, 'build')).matched).toBe(0);
    expect((await send(b.baseUrl, 'build')).matched).toBe(0);

    const created = await callA('POST', '/api/automation/v1', { name: 'builds', trigger: { type: 'event', source: 'ci', on: 'build' }, instructions: 'look' });
    expect(created.status).toBe(201);
    const seenCreate = await timeUntil(b.baseUrl, (matched) => matched === 1);

    expect((await callA('PATCH', `/api/automation/v1/${created.json.id}`, { enabled: false })).status).toBe(200);
    const seenDisable = await timeUntil(b.baseUrl, (matched) => matched === 0);

    expect((await callA('PATCH', `/api/automation/v1/${created.json.id}`, { enabled: true, trigger: { on: 'build' } })).status).toBe(200);
    const seenEnable = await timeUntil(b.baseUrl, (matched) => matched === 1);

    expect((await callA('DELETE', `/api/automation/v1/${created.json.id}`)).status).toBe(204);
    const seenDelete = await timeUntil(b.baseUrl, (matched) => matched === 0);

    for (const elapsed of [seenCreate, seenDisable, seenEnable, seenDelete]) expect(elapsed).toBeLessThan(1_000);
    expect(await stopServer(a)).toBe(0);
    expect(await stopServer(b)).toBe(0);
  });

  it('with a per-org limit of 1, two workers never run two of the org’s runs at once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'per-org-'));
    dirs.push(dir);
    const log = path.join(dir, 'spans.log');
    const env = await environment({
      AGENT_PLATFORM_RUNS_PER_ORG: '1',
      // Milliseconds since the epoch (GNU date).
      AGENT_PLATFORM_AGENT_COMMAND: `echo "start $(date +%s%3N) $AGENT_PLATFORM_RUN_ID" >> '${log}'; sleep 0.3; echo "end $(date +%s%3N) $AGENT_PLATFORM_RUN_ID" >> '${log}'`,
    });
    const running = await server({ ...env, AGENT_PLATFORM_EXECUTOR: 'off' });
    const workers = [await startWorker('examples/server', env), await startWorker('examples/server', env)];
    processes.push(...workers);
    const call = api(running.baseUrl);
    expect((await call('POST', '/api/automation/v1/webhooks', { name: 'CI', source: 'ci', webhook_secret: WEBHOOK_SECRET })).status).toBe(201);
    const automation = await call('POST', '/api/automation/v1', {
      name: 'builds',
      trigger: { type: 'event', source: 'ci', on: 'build' },
      instructions: 'look',
    });
    const runIds: string[] = [];
    for (let n = 0; n < 6; n++) runIds.push((await call('POST', `/api/automation/v1/${automation.json.id}/dispatch`, {})).json.id);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { runs } = (await call('GET', `/api/automation/v1/${automation.json.id}/runs?limit=100`)).json;
      if (runs.length === 6 && runs.every((run: { status: string }) => run.status === 'COMPLETED')) break;
      if (Date.now() > deadline) throw new Error(`runs did not complete: ${JSON.stringify(runs)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const spans = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' '));
    expect(
      spans
        .filter(([kind]) => kind === 'start')
        .map(([, , id]) => id)
        .sort(),
    ).toEqual([...runIds].sort());
    let alive = 0;
    let most = 0;
    for (const [kind] of spans.sort((x, y) => Number(x[1]) - Number(y[1]) || (x[0] === 'end' ? -1 : 1))) {
      alive += kind === 'start' ? 1 : -1;
      most = Math.max(most, alive);
    }
    expect(most).toBe(1);
    for (const worker of workers) expect(await stopServer(worker)).toBe(0);
    expect(await stopServer(running)).toBe(0);
  });
});
