/**
 * The hostile-input battery (no 5xx, no hang, no denial of service from one
 * request), against both reference servers — Fastify and Express — on memory, embedded PGlite
 * and PostgreSQL storage. Each item of the battery is one test, run on every variant; every
 * answer is `{"detail": ...}`, never a 5xx, never more than a short excerpt of the input.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiCall } from './support/http-api.js';
import { neverEndingBody, rawRequest, type RawAnswer } from './support/raw-http.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';
import { ADMIN_URL, admin } from './support/run-nodes.js';

const KEY = 'e2e-hostile-key-0123456789abcdef';
const OTHER_KEY = 'e2e-hostile-other-0123456789abcd';
const WEBHOOK_SECRET = 'hostile-webhook-secret-0123';
/** The request time limit the servers get here, so the slow-body test runs in seconds. */
const REQUEST_TIMEOUT_SECONDS = 2;

type Storage = 'memory' | 'pglite' | 'postgres';
const VARIANTS = (['examples/server', 'examples/express-server'] as const).flatMap((dir) =>
  (['memory', 'pglite', 'postgres'] as const).map((storage) => ({ dir, storage, name: `${dir === 'examples/server' ? 'Fastify' : 'Express'} on ${storage}` })),
);

async function storageEnv(storage: Storage, cleanups: (() => Promise<void>)[]): Promise<Record<string, string>> {
  if (storage === 'memory') return { AGENT_PLATFORM_STORAGE: 'memory' };
  if (storage === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'hostile-pglite-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return { AGENT_PLATFORM_STORAGE: 'pglite', AGENT_PLATFORM_DATA_DIR: dir };
  }
  const name = `ap_hostile_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  cleanups.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { DATABASE_URL: url.toString(), AGENT_PLATFORM_SECRET_KEY: Buffer.alloc(32, 9).toString('base64') };
}

/** An answer of the API's shape: JSON `{"detail": ...}` that echoes no long stretch of the input. */
function expectApiError(answer: { status: number; json?: any; body?: string }, status: number | number[], input = ''): void {
  expect([status].flat(), JSON.stringify(answer).slice(0, 300)).toContain(answer.status);
  expect(answer.json, answer.body?.slice(0, 300)).toEqual({ detail: expect.anything() });
  const text = JSON.stringify(answer.json);
  expect(text.length).toBeLessThan(2_000);
  if (input.length > 200) expect(text.includes(input.slice(0, 200))).toBe(false);
}

function sign(body: string): string {
  return `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`;
}

/** `[[[...]]]` nested `depth` levels around `inner`. */
const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);

describe.each(VARIANTS)('hostile input: $name', { timeout: 60_000 }, ({ dir, storage }) => {
  let server: RunningServer;
  let call: ApiCall;
  let raw: (head: string, body?: string | Buffer) => Promise<RawAnswer>;
  let automationId: string;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    server = await startServer(dir, {
      ...(await storageEnv(storage, cleanups)),
      AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY},bob@acme:${OTHER_KEY}`,
      AGENT_PLATFORM_REQUEST_TIMEOUT_SECONDS: String(REQUEST_TIMEOUT_SECONDS),
      AGENT_PLATFORM_AGENT_COMMAND: 'echo ran',
    });
    call = apiClient(server.baseUrl, KEY);
    raw = (head, body) => rawRequest(server.baseUrl, head, body);
    expect((await call('POST', '/api/automation/v1/webhooks', { name: 'CI', source: 'ci', webhook_secret: WEBHOOK_SECRET })).status).toBe(201);
    const automation = await call('POST', '/api/automation/v1', {
      name: 'builds',
      trigger: { type: 'event', source: 'ci', on: 'build' },
      instructions: 'look',
    });
    expect(automation.status).toBe(201);
    automationId = automation.json.id;
  }, 60_000);

  afterAll(async () => {
    if (server) await stopServer(server);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }, 60_000);

  const health = async () => {
    const began = Date.now();
    const response = await fetch(`${server.baseUrl}/health`, { signal: AbortSignal.timeout(1_000) });
    return { status: response.status, ms: Date.now() - began };
  };

  it('1. a filter that doubles its value is refused at save, and a large event with many glob calls leaves /health answering', async () => {
    const doubling = `length(@${'|[@,@]'.repeat(25)}|[])`;
    const refused = await call('POST', '/api/automation/v1', {
      name: 'bomb',
      trigger: { type: 'event', source: 'ci', on: 'build', filter: doubling },
      instructions: 'x',
    });
    expectApiError(refused, 422);
    const globs = Array.from({ length: 132 }, (_, n) => `glob(big, '*${n}*x')`).join(' || ');
    const heavy = await call('POST', '/api/automation/v1', {
      name: 'globs',
      trigger: { type: 'event', source: 'ci', on: 'heavy', filter: globs },
      instructions: 'x',
    });
    expect(heavy.status).toBe(201);
    const body = JSON.stringify({ type: 'heavy', big: 'a'.repeat(1024 * 1024) });
    const sending = fetch(`${server.baseUrl}/api/automation/v1/events/acme/ci`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
    });
    const probes = await Promise.all([health(), new Promise((resolve) => setTimeout(resolve, 100)).then(health)]);
    const answer = await sending;
    expect(answer.status).toBe(200);
    for (const probe of probes) expect(probe.status).toBe(200);
    expect((await call('DELETE', `/api/automation/v1/${heavy.json.id}`)).status).toBe(204);
  });

  it('2. a body that never ends is cut off in bounded time, while everyone else is served', async () => {
    const began = Date.now();
    const slow = neverEndingBody(server.baseUrl, `POST /api/automation/v1/events/acme/ci HTTP/1.1\r\nHost: x\r\nX-Signature-256: sha256=00`, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await health()).status).toBe(200);
    const answer = await slow.answer;
    const ms = Date.now() - began;
    expect(ms).toBeLessThan((REQUEST_TIMEOUT_SECONDS + 5) * 1000);
    if (answer) expectApiError(answer, [400, 408]);
  });

  it('3. what the framework refuses is answered in the API’s shape, echoing no long input', async () => {
    expectApiError(await raw('GET /health HTTP/1.1\r\nHost: x\r\nX-Test: a\u0000b'), 400);
    const huge = 'h'.repeat(60 * 1024);
    expectApiError(await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Huge: ${huge}`), 431, huge);
    const longId = 'a'.repeat(10_000);
    expectApiError(await raw(`GET /api/automation/v1/${longId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}`), [404, 414], longId);
    for (const bad of ['%FF', '%E0%A4%A', '%ED%A0%80']) {
      expectApiError(await raw(`GET /api/automation/v1/${bad} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}`), [400, 404]);
    }
  });

  it('4. over-deep input is refused at the door and nothing is stored; every stored record stays readable', async () => {
    const dispatch = await raw(
      `POST /api/automation/v1/${automationId}/dispatch HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(`{"payload":{"a":${nested(10_000)}}}`)}`,
      `{"payload":{"a":${nested(10_000)}}}`,
    );
    expectApiError(dispatch, [400, 413, 422]);
    const before = (await call('GET', '/api/automation/v1/deliveries?limit=100')).json.total;
    const event = `{"type":"build","deep":${nested(100_000)}}`;
    const answer = await fetch(`${server.baseUrl}/api/automation/v1/events/acme/ci`, {
      method: 'POST',
      body: event,
      headers: { 'content-type': 'application/json', 'x-signature-256': sign(event) },
    });
    expectApiError({ status: answer.status, json: await answer.json().catch(() => undefined) }, [400, 413, 422]);
    const after = await call('GET', '/api/automation/v1/deliveries?limit=100');
    expect(after.json.total).toBe(before);
    for (const delivery of after.json.deliveries) expect((await call('GET', `/api/automation/v1/deliveries/${delivery.id}`)).status).toBe(200);
    expect((await call('GET', `/api/automation/v1/${automationId}/runs`)).status).toBe(200);
  });

  it('5. a JSON null body where an object is required is a 422, and changes nothing', async () => {
    expect((await call('POST', '/api/settings', { language: 'de' })).status).toBe(200);
    const post = (method: string, route: string) =>
      fetch(server.baseUrl + route, { method, body: 'null', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } }).then(
        async (response) => ({ status: response.status, json: await response.json() }),
      );
    expectApiError(await post('POST', '/api/settings'), 422);
    expect((await call('GET', '/api/settings')).json.language).toBe('de');
    expectApiError(await post('PATCH', `/api/automation/v1/${automationId}`), 422);
    expect((await call('GET', `/api/automation/v1/${automationId}`)).json.name).toBe('builds');
  });

  it('6. lone surrogates are stored as JSON allows and read back — never a 500', async () => {
    const odd = 'x\ud800y\udc00z';
    // `language` is a BCP 47 tag (a 422 otherwise); the git identity is free text.
    expect((await call('POST', '/api/settings', { git_user_name: odd })).status).toBe(200);
    expect((await call('GET', '/api/settings')).json.git_user_name).toBe(odd);
    const webhook = await call('POST', '/api/automation/v1/webhooks', { name: odd, source: 'odd' });
    expect(webhook.status).toBe(201);
    expect((await call('GET', `/api/automation/v1/webhooks/${webhook.json.id}`)).json.name).toBe(odd);
    const automation = await call('POST', '/api/automation/v1', { name: odd, trigger: { type: 'event', source: 'ci', on: 'odd' }, instructions: odd });
    expect(automation.status).toBe(201);
    expect((await call('GET', `/api/automation/v1/${automation.json.id}`)).json).toMatchObject({ name: odd, instructions: odd });
    const key = await call('POST', '/api/keys', { name: odd });
    expect(key.status).toBe(201);
    expect((await call('GET', '/api/keys')).json.keys.some((listed: { name: string }) => listed.name === odd)).toBe(true);
    const event = JSON.stringify({ type: 'odd', text: odd });
    const sent = await fetch(`${server.baseUrl}/api/automation/v1/events/acme/ci`, {
      method: 'POST',
      body: event,
      headers: { 'content-type': 'application/json', 'x-signature-256': sign(event) },
    });
    expect(sent.status).toBe(200);
    const { delivery_id: deliveryId } = (await sent.json()) as { delivery_id: string };
    expect((await call('GET', `/api/automation/v1/deliveries/${deliveryId}`)).json.payload).toEqual({ type: 'odd', text: odd });
  });

  it('7. a NUL in an id is a 404 before storage (the unauthenticated events endpoint too), in a query value a 422', async () => {
    for (const route of [
      `/api/automation/v1/a%00b`,
      `/api/automation/v1/webhooks/a%00b`,
      `/api/automation/v1/deliveries/a%00b`,
      `/api/automation/v1/runs/a%00b`,
      `/api/v1/app-conversations/a%00b`,
      `/api/keys/a%00b`,
    ]) {
      expectApiError(await call(route.startsWith('/api/keys') ? 'DELETE' : 'GET', route), 404);
    }
    const body = '{"type":"build"}';
    for (const route of ['/api/automation/v1/events/ac%00me/ci', '/api/automation/v1/events/acme/c%00i']) {
      const answer = await fetch(server.baseUrl + route, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
      });
      expectApiError({ status: answer.status, json: await answer.json() }, 404);
    }
    expectApiError(await call('GET', '/api/automation/v1/deliveries?source=c%00i'), 422);
    expectApiError(await call('GET', '/api/v1/sandboxes?id=a%00b'), [404, 422]);
  });

  it('8. two different credentials in one request are a 400, not a pick', async () => {
    expectApiError(await raw(`GET /api/settings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nAuthorization: Bearer ${OTHER_KEY}`), 400);
    expectApiError(await raw(`GET /api/settings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nX-Session-API-Key: ${OTHER_KEY}`), 400);
    // The same key twice names one principal: fine.
    expect((await raw(`GET /api/automation/v1?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nX-Session-API-Key: ${KEY}`)).status).toBe(200);
  });

  it('the server is still up and answering after the battery', async () => {
    const probe = await health();
    expect(probe.status).toBe(200);
    expect(probe.ms).toBeLessThan(1_000);
    expect(server.output.join('')).not.toMatch(/"statusCode":5\d\d|Internal server error/);
  });
});
