/**
 * An attacker's requests, on both bindings, hardened as the reference servers are: every answer
 * is `{"detail": ...}` (or the 422 list), the same on Fastify and Express, never a 5xx, never
 * quoting more than a short excerpt of the request; a request that never finishes arriving is
 * cut off (408) while everyone else is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRecord, StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { credentialOf } from './routing/define-route.js';
import { allRoutes } from './handler.js';
import { createFetchHandler } from './fetch.js';
import { UNSHOWABLE_PAYLOAD } from './routes/delivery-routes.js';
import { createAutomation, registerWebhook, sendEvent } from '../test-support/events.js';
import { BINDINGS, KEYS, startHarness, type Harness } from '../test-support/harness.js';
import { neverEndingBody, rawExchange, rawRequest, type RawAnswer } from '../test-support/raw-http.js';

/** The longest answer body an error may have: enough for a message, too short to quote an attack. */
const SHORT = 300;

function expectDetail(answer: { status: number; json: any; body?: string; text?: string }, status: number, detail?: RegExp | string): void {
  expect(answer.status).toBe(status);
  expect(answer.json).toEqual({ detail: typeof detail === 'string' ? detail : detail ? expect.stringMatching(detail) : expect.any(String) });
  expect((answer.body ?? answer.text ?? '').length).toBeLessThan(SHORT);
}

const head = (api: Harness, requestLine: string, ...headers: string[]) => [requestLine, `Host: ${new URL(api.baseUrl).host}`, ...headers].join('\r\n');

/** Strings no id can be: they must never reach storage. */
const impossible = (value: string) => /[\u0000-\u001f\u007f-\u009f]/.test(value) || value.length > 200 || /[\ud800-\udfff]/.test(value);

/** Memory storage that records any call whose string arguments no id could be. */
function watchedStorage(): { storage: StorageAdapter; reached: string[] } {
  const inner = createMemoryStorage();
  const reached: string[] = [];
  const watch = <T extends object>(repository: T, name: string): T =>
    new Proxy(repository, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (args.some((arg) => typeof arg === 'string' && impossible(arg))) reached.push(`${name}.${String(key)}`);
          return value.apply(target, args);
        };
      },
    });
  const wrapAll = (adapter: Record<string, unknown>) =>
    new Proxy(adapter, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (key === 'transaction')
          return (fn: (tx: unknown) => unknown) => (value as (f: unknown) => unknown).call(target, (tx: Record<string, unknown>) => fn(wrapAll(tx)));
        if (value && typeof value === 'object' && key !== 'changes' && key !== 'runQueue') return watch(value, String(key));
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return { storage: wrapAll(inner as unknown as Record<string, unknown>) as unknown as StorageAdapter, reached };
}

describe.each(BINDINGS)('hostile input on %s', (binding) => {
  let api: Harness;
  let reached: string[];
  beforeAll(async () => {
    const watched = watchedStorage();
    reached = watched.reached;
    api = await startHarness(binding, {
      storage: watched.storage,
      bodyTimeoutMs: 1_000,
      limits: { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500 },
    });
  });
  afterAll(() => api.close());

  describe('requests that never finish arriving (408)', () => {
    it('cuts off a chunked event body that never ends, and keeps serving others meanwhile', async () => {
      const { secret } = await registerWebhook(api, { name: 'Slow', source: 'slow' });
      const slow = neverEndingBody(api.baseUrl, head(api, 'POST /api/automation/v1/events/acme/slow HTTP/1.1', 'X-Signature-256: sha256=00'));
      const began = Date.now();
      const health = await api.request('GET', '/health', { as: null });
      expect(health.status).toBe(200);
      expect(Date.now() - began).toBeLessThan(500);
      // A signed event from someone else goes through while the slow one hangs.
      expect((await sendEvent(api, 'acme', 'slow', { type: 'x' }, { secret })).status).toBe(200);
      const answer = await slow.answer;
      expect(answer).not.toBeNull();
      expectDetail(answer as RawAnswer, 408, 'Request not received in time');
      expect((answer as RawAnswer).ms).toBeLessThan(4_000);
    });

    it('cuts off an API body that never ends', async () => {
      const slow = neverEndingBody(api.baseUrl, head(api, 'POST /api/settings HTTP/1.1', `X-Session-API-Key: ${KEYS.alice}`));
      const answer = (await slow.answer) as RawAnswer;
      expectDetail(answer, 408, 'Request not received in time');
      expect(answer.ms).toBeLessThan(4_000);
    });

    it('cuts off headers that never end', async () => {
      const slow = rawExchange(api.baseUrl, `GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n`);
      const answer = (await slow.answer) as RawAnswer;
      expectDetail(answer, 408, 'Request not received in time');
      expect(answer.ms).toBeLessThan(4_000);
    });
  });

  describe('refusals by Node’s parser and the framework’s router, in the API’s shape', () => {
    it('answers 400 for a NUL byte in a header', async () => {
      expectDetail(await rawRequest(api.baseUrl, head(api, 'GET /health HTTP/1.1', 'X-Evil: a\u0000b')), 400);
    });

    it('answers 431 for a 60 KB header', async () => {
      expectDetail(await rawRequest(api.baseUrl, head(api, 'GET /api/keys HTTP/1.1', `X-Padding: ${'x'.repeat(60 * 1024)}`)), 431);
    });

    it('answers 400 for a malformed request line', async () => {
      expectDetail(await rawRequest(api.baseUrl, 'GET /health HTTP/1.1 extra'), 400);
    });

    it('answers 404 for a 10,000-character id, without quoting it', async () => {
      const response = await api.request('GET', `/api/automation/v1/${'a'.repeat(10_000)}`);
      expectDetail(response, 404, 'Automation not found');
    });

    it.each(['%FF', '%E0%A4%A', '%ED%A0%80', '%'])('answers 404 for the malformed percent-encoding %s in a path', async (encoded) => {
      for (const path of [`/api/automation/v1/${encoded}`, `/api/automation/v1/events/acme/${encoded}`, `/api/keys/a${encoded}`, `/nothing/${encoded}`]) {
        expectDetail(await rawRequest(api.baseUrl, head(api, `GET ${path} HTTP/1.1`, `X-Session-API-Key: ${KEYS.alice}`)), 404, 'Not Found');
      }
    });

    it('answers CONNECT 405 instead of dropping the connection', async () => {
      expectDetail(await rawRequest(api.baseUrl, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443'), 405, 'Method not allowed');
    });

    it('leaves methods the API does not serve to the host: 404 on both bindings', async () => {
      for (const method of ['OPTIONS', 'PROPFIND']) {
        expectDetail(await rawRequest(api.baseUrl, head(api, `${method} /api/keys HTTP/1.1`, `X-Session-API-Key: ${KEYS.alice}`)), 404, 'Not Found');
      }
    });

    it('answers 404 for an unknown path, whatever its body, without quoting the path', async () => {
      const response = await api.request('POST', `/nothing/${'z'.repeat(2_000)}`, { body: '{"broken', headers: { 'content-type': 'application/json' } });
      expectDetail(response, 404, 'Not Found');
    });
  });

  describe('nesting (400 at the door, nothing stored)', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

    it('refuses an API body nested deeper than 128 levels, and accepts 128', async () => {
      const deep = await api.request('POST', '/api/automation/v1/webhooks', {
        body: `{"name": ${nested(129)}}`,
        headers: { 'content-type': 'application/json' },
      });
      expectDetail(deep, 400, /nested deeper than 128 levels/);
      // 127 levels inside the body object: the schema answers, not the depth check.
      const fine = await api.request('POST', '/api/automation/v1/webhooks', {
        body: `{"name": ${nested(127)}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(fine.status).toBe(422);
    });

    it('refuses a dispatch payload nested 10,000 deep and creates no run', async () => {
      const id = await createAutomation(api, { source: 'deep-src', on: 'x' }, 'alice', 'deep');
      const response = await api.request('POST', `/api/automation/v1/${id}/dispatch`, {
        body: `{"payload": ${nestedObject(10_000)}}`,
        headers: { 'content-type': 'application/json' },
      });
      expectDetail(response, 400, /nested deeper than 128 levels/);
      expect((await api.request('GET', `/api/automation/v1/${id}/runs`)).json.total).toBe(0);
    });

    it('refuses a signed event nested 100,000 deep and stores no delivery', async () => {
      const { secret } = await registerWebhook(api, { name: 'Deep', source: 'deep' });
      const before = (await api.request('GET', '/api/automation/v1/deliveries?source=deep')).json.total;
      const response = await sendEvent(api, 'acme', 'deep', `{"type": "x", "data": ${nested(100_000)}}`, { secret });
      expectDetail(response, 400, /nested deeper than 128 levels/);
      expect((await api.request('GET', '/api/automation/v1/deliveries?source=deep')).json.total).toBe(before);
    });

    it('keeps a delivery stored before the limit readable, with a note for its payload', async () => {
      const record: DeliveryRecord = {
        id: `dlv_deep_${binding}`,
        org_id: 'acme',
        source: 'old',
        provider_delivery_id: null,
        event_key: 'x',
        status: 'unmatched',
        detail: null,
        outcomes: [],
        runs_created: [],
        replay_of: null,
        received_at: new Date().toISOString(),
        payload_json: nested(100_000),
        dedup_key: `deep-${binding}`,
      };
      await api.storage.deliveries.insert(record);
      const response = await api.request('GET', `/api/automation/v1/deliveries/${record.id}`);
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ id: record.id, status: 'unmatched', payload: UNSHOWABLE_PAYLOAD });
      expect((await api.request('GET', '/api/automation/v1/deliveries?source=old')).status).toBe(200);
    });
  });

  it('does not repeat a long unknown field name in a 422', async () => {
    const name = 'k'.repeat(10_000);
    const response = await api.request('POST', '/api/settings', { json: { mcp_config: { [name]: 1 } } });
    expect(response.status).toBe(422);
    expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'mcp_config', `${'k'.repeat(64)}…`], type: 'extra_forbidden' })]);
    expect(response.text.length).toBeLessThan(SHORT);
  });

  describe('a JSON null where an object is required (422, nothing changed)', () => {
    it('refuses null settings and keeps the stored ones', async () => {
      expect((await api.request('POST', '/api/settings', { json: { language: 'fr' } })).status).toBe(200);
      const response = await api.request('POST', '/api/settings', { body: 'null', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(422);
      expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['body'] })]);
      expect((await api.request('GET', '/api/settings')).json.language).toBe('fr');
    });

    it('refuses a null automation update', async () => {
      const id = await createAutomation(api, { source: 'null-src', on: 'x' }, 'alice', 'keep-me');
      const response = await api.request('PATCH', `/api/automation/v1/${id}`, { body: 'null', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(422);
      expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['body'] })]);
      expect((await api.request('GET', `/api/automation/v1/${id}`)).json.name).toBe('keep-me');
    });

    it.each(
      allRoutes()
        .filter((route) => route.body)
        .map((route) => [route.method, route.path]),
    )('%s %s answers 422 for a null body', async (method, path) => {
      const response = await api.request(method, path.replaceAll(/\{[^}]+\}/g, 'x'), { body: 'null', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(422);
      expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['body'] })]);
    });
  });

  describe('ids and query values no record can have', () => {
    const idRoutes = allRoutes().filter((route) => route.path.includes('{'));
    const bad = { nul: '%00', control: 'a%01b', long: 'x'.repeat(201), newline: 'a%0Ab' };

    it.each(Object.entries(bad))('answers 404 on every id route for a %s id, before storage', async (_kind, id) => {
      for (const route of idRoutes) {
        const response = await api.request(route.method, route.path.replaceAll(/\{[^}]+\}/g, id), {
          ...(route.body ? { json: {} } : {}),
          ...(credentialOf(route) === 'none' ? { as: null, headers: { 'x-signature-256': 'sha256=00' } } : {}),
        });
        expectDetail(response, 404, /not found|Unknown or disabled webhook source/);
      }
      expect(reached).toEqual([]);
    });

    it('still looks up an id of 200 characters', async () => {
      expectDetail(await api.request('GET', `/api/automation/v1/${'x'.repeat(200)}`), 404, 'Automation not found');
    });

    it('answers 422 for a query value with a NUL or another control character', async () => {
      for (const [path, name] of [
        ['/api/automation/v1?limit=1%00', 'limit'],
        ['/api/automation/v1/deliveries?source=a%00b', 'source'],
        ['/api/v1/sandboxes?id=a%00b', 'id'],
        ['/api/v1/app-conversations?ids=ok&ids=a%07b', 'ids'],
      ] as const) {
        const response = await api.request('GET', path);
        expect(response.status).toBe(422);
        expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['query', name] })]);
      }
      expect(reached).toEqual([]);
    });

    it('names a query parameter with control characters in its name without them, and briefly', async () => {
      const response = await api.request('POST', `/api/keys?${'%00'.repeat(1000)}=a&ok=1`, { json: { name: 'k' } });
      expect(response.status).toBe(422);
      expect(response.json.detail).toEqual([expect.objectContaining({ loc: ['query', `${'\uFFFD'.repeat(64)}…`] })]);
      expect(response.text).not.toContain('\\u0000');
      const bell = await api.request('GET', '/api/automation/v1?li%07mit=1');
      expect(bell.json.detail).toEqual([expect.objectContaining({ loc: ['query', 'li\uFFFDmit'] })]);
      expect(reached).toEqual([]);
    });
  });

  describe('more than one API key (400)', () => {
    const authorized = (...headers: string[]) => rawRequest(api.baseUrl, head(api, 'GET /api/keys HTTP/1.1', ...headers));

    it('refuses two Authorization headers naming different keys', async () => {
      expectDetail(await authorized(`Authorization: Bearer ${KEYS.alice}`, `Authorization: Bearer ${KEYS.mallory}`), 400, /Authorization/);
      expectDetail(await authorized(`Authorization: Bearer ${KEYS.mallory}`, `Authorization: Bearer ${KEYS.alice}`), 400, /Authorization/);
    });

    it('refuses Authorization and X-Session-API-Key naming different keys, and two session keys', async () => {
      expectDetail(await authorized(`Authorization: Bearer ${KEYS.alice}`, `X-Session-API-Key: ${KEYS.mallory}`), 400, /more than one API key/);
      expectDetail(await authorized(`X-Session-API-Key: ${KEYS.alice}`, `X-Session-API-Key: ${KEYS.bob}`), 400, /more than one API key/);
      const viaFetch = await api.request('GET', '/api/keys', { as: 'alice', headers: { authorization: `Bearer ${KEYS.bob}` } });
      expectDetail(viaFetch, 400, /more than one API key/);
    });

    it('accepts the same key in both headers, or twice', async () => {
      expect((await authorized(`Authorization: Bearer ${KEYS.alice}`, `X-Session-API-Key: ${KEYS.alice}`)).status).toBe(200);
      expect((await authorized(`Authorization: Bearer ${KEYS.alice}`, `Authorization: Bearer ${KEYS.alice}`)).status).toBe(200);
      expect((await api.request('GET', '/api/keys', { as: 'alice', headers: { authorization: `Bearer ${KEYS.alice}` } })).status).toBe(200);
    });
  });

  describe('lone surrogates in JSON bodies are kept as sent', () => {
    const lone = '"x\\ud800y"';
    const send = (method: string, path: string, body: string) => api.request(method, path, { body, headers: { 'content-type': 'application/json' } });

    it('in settings, webhook, automation and API key names, and event payloads', async () => {
      // `language` is a BCP 47 tag now (a 422 otherwise); the git identity is free text.
      expect((await send('POST', '/api/settings', `{"git_user_name": ${lone}}`)).status).toBe(200);
      const settings = await api.request('GET', '/api/settings');
      expect(settings.json.git_user_name).toBe('x\ud800y');
      expect(settings.text).toContain('x\\ud800y');

      const webhook = await send('POST', '/api/automation/v1/webhooks', `{"name": ${lone}, "source": "lone", "webhook_secret": "lone-secret-0123"}`);
      expect(webhook.status).toBe(201);
      expect(webhook.json.name).toBe('x\ud800y');

      const automation = await send(
        'POST',
        '/api/automation/v1',
        `{"name": ${lone}, "instructions": "i", "trigger": {"type": "event", "source": "lone", "on": "x"}}`,
      );
      expect(automation.status).toBe(201);
      expect((await api.request('GET', `/api/automation/v1/${automation.json.id}`)).json.name).toBe('x\ud800y');

      const key = await send('POST', '/api/keys', `{"name": ${lone}}`);
      expect(key.status).toBe(201);
      expect(key.json.name).toBe('x\ud800y');

      const event = await sendEvent(api, 'acme', 'lone', `{"type": "x", "title": ${lone}}`, { secret: 'lone-secret-0123' });
      expect(event.status).toBe(200);
      const delivery = await api.request('GET', `/api/automation/v1/deliveries/${event.json.delivery_id}`);
      expect(delivery.json.payload.title).toBe('x\ud800y');
    });
  });
});

describe.each(BINDINGS)('the bare %s binding', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    // No server options, no hardening: the binding's own body deadline is what stops the request.
    api = await startHarness(binding, { hardened: false, bodyTimeoutMs: 1_000 });
  });
  afterAll(() => api.close());

  it('cuts off a body that never ends on its own (408)', async () => {
    const slow = neverEndingBody(api.baseUrl, head(api, 'POST /api/settings HTTP/1.1', `X-Session-API-Key: ${KEYS.alice}`));
    expect((await api.request('GET', '/health', { as: null })).status).toBe(200);
    const answer = (await slow.answer) as RawAnswer;
    expectDetail(answer, 408, 'Request not received in time');
    expect(answer.ms).toBeLessThan(4_000);
  });
});

describe.each(BINDINGS)('the %s server’s own request timeout', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    // The binding's deadline off: the server's requestTimeout answers.
    api = await startHarness(binding, { bodyTimeoutMs: 0, limits: { headersTimeoutMs: 500, requestTimeoutMs: 1_000 } });
  });
  afterAll(() => api.close());

  it('answers 408 in the API’s shape', async () => {
    const slow = neverEndingBody(api.baseUrl, head(api, 'POST /api/settings HTTP/1.1', `X-Session-API-Key: ${KEYS.alice}`));
    const answer = (await slow.answer) as RawAnswer;
    expectDetail(answer, 408, 'Request not received in time');
    expect(answer.ms).toBeLessThan(4_000);
  });
});

describe('fetch handler', () => {
  it('refuses two different keys joined in one Headers value', async () => {
    const { createAesGcmSecretBox, createAgentPlatform, generateSecretKey } = await import('@agent-platform/core');
    const platform = createAgentPlatform({
      storage: createMemoryStorage(),
      secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
      publicUrl: 'http://localhost',
    });
    await platform.apiKeys.seed({ userId: 'a', orgId: 'o', key: KEYS.alice });
    await platform.apiKeys.seed({ userId: 'b', orgId: 'o', key: KEYS.bob });
    const handle = createFetchHandler(platform);
    const headers = new Headers();
    headers.append('authorization', `Bearer ${KEYS.alice}`);
    headers.append('authorization', `Bearer ${KEYS.bob}`);
    const twice = await handle(new Request('http://platform.test/api/keys', { headers }));
    expect(twice.status).toBe(400);
    const same = new Headers({ authorization: `Bearer ${KEYS.alice}`, 'x-session-api-key': KEYS.alice });
    expect((await handle(new Request('http://platform.test/api/keys', { headers: same }))).status).toBe(200);
  });
});
