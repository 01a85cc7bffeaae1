/**
 * Retries, timeouts, network failures, aborts and error bodies: what the transport does with each,
 * against fetch functions that answer the way a real server or a broken network would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentPlatformConnectionError,
  AgentPlatformError,
  AgentPlatformTimeoutError,
  collect,
  createClient,
  isAgentPlatformConnectionError,
  isAgentPlatformError,
  isAgentPlatformWaitError,
} from './index.js';

const BASE = 'https://agents.example.com';
const KEY = 'transport-test-key-0123456789';
const fast = { delay: () => 1 };

/** A fetch that answers from a list, one answer per call, recording each request. */
function scripted(answers: (() => Response | Promise<Response>)[]) {
  const requests: Request[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    requests.push(request);
    const answer = answers[Math.min(requests.length - 1, answers.length - 1)];
    if (!answer) throw new Error('no answer scripted');
    return answer();
  };
  return { fetch, requests };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const unavailable = json(503, { detail: 'Storage is not reachable' });

describe('retries', () => {
  it('retries an idempotent GET on 503 and answers the success', async () => {
    const { fetch, requests } = scripted([unavailable, unavailable, json(200, { keys: [] })]);
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch, retry: { limit: 2, ...fast } });
    expect(await client.apiKeys.list()).toEqual({ keys: [] });
    expect(requests).toHaveLength(3);
  });

  it('gives up after the limit with the last answer as an AgentPlatformError', async () => {
    const { fetch, requests } = scripted([unavailable]);
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch, retry: { limit: 2, ...fast } });
    const error = await client.apiKeys.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentPlatformError);
    expect(error).toMatchObject({ status: 503, code: 'UNAVAILABLE', detail: 'Storage is not reachable' });
    expect(requests).toHaveLength(3);
  });

  it('never retries POST or PATCH by default, since they are not idempotent', async () => {
    const { fetch, requests } = scripted([unavailable]);
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch, retry: { limit: 5, ...fast } });
    await expect(client.automations.dispatch('auto_1')).rejects.toMatchObject({ status: 503 });
    await expect(client.automations.update('auto_1', { name: 'x' })).rejects.toMatchObject({ status: 503 });
    expect(requests.map((request) => request.method)).toEqual(['POST', 'PATCH']);
  });

  it('retries DELETE (idempotent), and does not retry a 4xx or a 413', async () => {
    const deleted = scripted([unavailable, () => new Response(null, { status: 204 })]);
    await expect(createClient({ baseUrl: BASE, apiKey: KEY, fetch: deleted.fetch, retry: fast }).apiKeys.revoke('key_1')).resolves.toBeUndefined();
    expect(deleted.requests).toHaveLength(2);
    for (const status of [400, 404, 409, 413, 422]) {
      const { fetch, requests } = scripted([json(status, { detail: 'no' })]);
      await expect(createClient({ baseUrl: BASE, apiKey: KEY, fetch, retry: fast }).webhooks.get('wh_1')).rejects.toMatchObject({ status });
      expect(requests, String(status)).toHaveLength(1);
    }
  });

  it('retry: 0 turns retries off; POST can be opted in', async () => {
    const off = scripted([unavailable]);
    await expect(createClient({ baseUrl: BASE, apiKey: KEY, fetch: off.fetch, retry: 0 }).apiKeys.list()).rejects.toMatchObject({ status: 503 });
    expect(off.requests).toHaveLength(1);
    const opted = scripted([unavailable, json(201, { id: 'run_1' })]);
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: opted.fetch, retry: { limit: 1, methods: ['post'], ...fast } });
    expect(await client.automations.dispatch('auto_1')).toEqual({ id: 'run_1' });
    expect(opted.requests).toHaveLength(2);
  });

  it('waits as long as a 503’s Retry-After says before trying again', async () => {
    const { fetch, requests } = scripted([json(503, { detail: 'Storage is not reachable' }, { 'retry-after': '1' }), json(200, { keys: [] })]);
    const sentAt: number[] = [];
    const timed: typeof globalThis.fetch = (input, init) => {
      sentAt.push(Date.now());
      return fetch(input, init);
    };
    await createClient({ baseUrl: BASE, apiKey: KEY, fetch: timed, retry: { limit: 1, ...fast } }).apiKeys.list();
    expect(requests).toHaveLength(2);
    // A lower bound only: a timer never fires early, so this cannot flake on a slow machine.
    expect((sentAt[1] ?? 0) - (sentAt[0] ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('retries a GET after a network failure', async () => {
    const { fetch, requests } = scripted([
      () => {
        throw new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
      },
      json(200, { status: 'ok' }),
    ]);
    expect(await createClient({ baseUrl: BASE, fetch, retry: fast }).system.health()).toEqual({ status: 'ok' });
    expect(requests).toHaveLength(2);
  });
});

describe('failures without an answer', () => {
  let server: Server;
  let hangingUrl: string;
  beforeAll(async () => {
    // Accepts connections and never answers.
    server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hangingUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a refused connection is an AgentPlatformConnectionError (network), not an AgentPlatformError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY, retry: 0 })
      .apiKeys.list()
      .catch((e: unknown) => e);
    expect(isAgentPlatformConnectionError(error)).toBe(true);
    expect(isAgentPlatformError(error)).toBe(false);
    expect(error).toBeInstanceOf(AgentPlatformConnectionError);
    expect(error).toMatchObject({ reason: 'network', method: 'GET' });
    expect(String((error as Error).message)).not.toContain(KEY);
  });

  it('no answer within the timeout is an AgentPlatformTimeoutError, over a real socket', async () => {
    const client = createClient({ baseUrl: hangingUrl, apiKey: KEY, timeout: 100, retry: 0 });
    const started = Date.now();
    const error = await client.webhooks.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentPlatformTimeoutError);
    expect(error).toMatchObject({ reason: 'timeout', timeoutMs: 100 });
    expect(isAgentPlatformConnectionError(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a per-call timeout overrides the client’s', async () => {
    const client = createClient({ baseUrl: hangingUrl, timeout: 60_000, retry: 0 });
    await expect(client.system.health({ timeout: 50 })).rejects.toBeInstanceOf(AgentPlatformTimeoutError);
  });

  it('the caller’s abort rejects with the signal’s reason, untouched', async () => {
    const client = createClient({ baseUrl: hangingUrl, retry: 0 });
    const controller = new AbortController();
    const call = client.system.health({ signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = await call.catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(isAgentPlatformConnectionError(error) || isAgentPlatformError(error) || isAgentPlatformWaitError(error)).toBe(false);
  });
});

describe('errors before sending', () => {
  it('a key fetch cannot put in a header is the TypeError fetch gives, not a network failure', async () => {
    const { fetch } = scripted([json(200, {})]);
    const error = await createClient({ baseUrl: BASE, apiKey: 'ключ-0123456789', fetch })
      .webhooks.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(isAgentPlatformConnectionError(error)).toBe(false);
  });

  it('a fetch that fails (no such host) is a network failure that names the cause', async () => {
    const cause = new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND agents.example.com') });
    const { fetch } = scripted([
      () => {
        throw cause;
      },
    ]);
    const error = await createClient({ baseUrl: BASE, fetch, retry: 0 })
      .system.health()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'network', cause });
    expect((error as Error).message).toContain('ENOTFOUND');
  });
});

describe('answers', () => {
  it('an error body that is not the service’s JSON (a proxy’s page) keeps its text; unknown statuses are HTTP_ERROR', async () => {
    const { fetch } = scripted([() => new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' })]);
    const error = await createClient({ baseUrl: BASE, fetch, retry: 0 })
      .system.health()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, code: 'HTTP_ERROR', detail: '<html>Bad Gateway</html>' });
  });

  it('an answer of the other declared shape is an error: a list where a page is due, and the reverse', async () => {
    const list = scripted([json(200, [null])]);
    await expect(createClient({ baseUrl: BASE, fetch: list.fetch }).conversations.list()).rejects.toMatchObject({
      status: 200,
      detail: 'The answer is not a page',
    });
    const page = scripted([json(200, { items: [], next_page_id: null })]);
    await expect(createClient({ baseUrl: BASE, fetch: page.fetch }).conversations.getMany(['c'])).rejects.toMatchObject({
      status: 200,
      detail: 'The answer is not a list',
    });
  });

  it('a 2xx that says JSON but is not is an error, not a silent undefined; one without a content type is read as JSON', async () => {
    const { fetch } = scripted([() => new Response('OK', { status: 200, headers: { 'content-type': 'application/json' } })]);
    await expect(createClient({ baseUrl: BASE, fetch }).system.health()).rejects.toMatchObject({ status: 200, detail: 'The answer is not JSON' });
    // Bytes have no default content type.
    const bare = scripted([() => new Response(new TextEncoder().encode('{"status":"ok"}'), { status: 200 })]);
    expect(await createClient({ baseUrl: BASE, fetch: bare.fetch }).system.health()).toEqual({ status: 'ok' });
    const problem = scripted([json(200, { status: 'ok' }, { 'content-type': 'application/problem+json; charset=utf-8' })]);
    expect(await createClient({ baseUrl: BASE, fetch: problem.fetch }).system.health()).toEqual({ status: 'ok' });
  });

  it('reads a text answer as a string and any other as a Blob, by its content type; a 204 is undefined', async () => {
    const text = scripted([() => new Response('line 1\n{"not": "parsed"}\n', { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } })]);
    const file = await createClient({ baseUrl: BASE, fetch: text.fetch }).conversations.readFile('conv_1', 'notes/a.txt');
    expect(file).toBe('line 1\n{"not": "parsed"}\n');
    expect(new URL(text.requests[0]?.url ?? '').pathname + new URL(text.requests[0]?.url ?? '').search).toBe(
      '/api/v1/app-conversations/conv_1/file?file_path=notes%2Fa.txt',
    );
    // The request says it takes them.
    expect(text.requests[0]?.headers.get('accept')).toMatch(/^application\/json, .*text\/\*/);
    const empty = scripted([() => new Response('', { status: 200, headers: { 'content-type': 'text/plain' } })]);
    expect(await createClient({ baseUrl: BASE, fetch: empty.fetch }).conversations.readFile('conv_1', 'empty.txt')).toBe('');

    const bytes = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0x7b]);
    const zip = scripted([
      () => new Response(bytes, { status: 200, headers: { 'content-type': 'application/zip', 'content-disposition': 'attachment; filename="c.zip"' } }),
    ]);
    const blob = await createClient({ baseUrl: BASE, fetch: zip.fetch }).conversations.download('conv_1');
    expect(blob).toBeInstanceOf(Blob);
    expect(blob.type).toBe('application/zip');
    expect(new Uint8Array(await blob.arrayBuffer())).toEqual(bytes);
    const octets = scripted([() => new Response(bytes, { status: 200, headers: { 'content-type': 'application/octet-stream' } })]);
    const raw = await createClient({ baseUrl: BASE, fetch: octets.fetch }).request('GET /api/v1/app-conversations/{id}/download', { params: { id: 'c' } });
    expect(new Uint8Array(await raw.arrayBuffer())).toEqual(bytes);

    const none = scripted([() => new Response(null, { status: 204, headers: { 'content-type': 'application/zip' } })]);
    await expect(createClient({ baseUrl: BASE, fetch: none.fetch }).apiKeys.revoke('key_1')).resolves.toBeUndefined();
  });

  it('maps a failed text or binary call as any other: the error body is read for its detail', async () => {
    const { fetch } = scripted([json(413, { detail: 'The file is larger than 10 MiB' })]);
    await expect(createClient({ baseUrl: BASE, fetch }).conversations.readFile('conv_1', 'big.bin')).rejects.toMatchObject({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      detail: 'The file is larger than 10 MiB',
    });
    const missing = scripted([json(404, { detail: 'Conversation not found' })]);
    const error = await createClient({ baseUrl: BASE, fetch: missing.fetch, retry: 0 })
      .conversations.download('conv_x')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentPlatformError);
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND', detail: 'Conversation not found' });
  });

  it('sends JSON with its content type, the credential in a header, and never in the URL', async () => {
    const { fetch, requests } = scripted([json(201, { id: 'x' })]);
    await createClient({ baseUrl: BASE, apiKey: KEY, fetch, headers: { 'x-trace': 't1' } }).automations.create({
      name: 'n',
      trigger: { type: 'event', source: 'linear', on: 'Issue' },
      instructions: 'i',
    });
    const [request] = requests;
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(request?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(request?.headers.get('x-trace')).toBe('t1');
    expect(request?.url).not.toContain(KEY);
    expect(await request?.json()).toEqual({ name: 'n', trigger: { type: 'event', source: 'linear', on: 'Issue' }, instructions: 'i' });
  });
});

describe('paging', () => {
  it('walks an offset list to its end without yielding a record twice when one is created mid-walk', async () => {
    const run = (id: string) => ({ id });
    // Newest first: after the first page, r0 is created, which pushes r2 onto the second page again.
    const { fetch, requests } = scripted([
      json(200, { automations: [run('a3'), run('a2')], total: 4 }),
      json(200, { automations: [run('a2'), run('a1')], total: 5 }),
      json(200, { automations: [run('a0')], total: 5 }),
    ]);
    const ids = (await collect(createClient({ baseUrl: BASE, fetch }).automations.iterate({ pageSize: 2 }))).map((item) => item.id);
    expect(ids).toEqual(['a3', 'a2', 'a1', 'a0']);
    expect(requests.map((request) => new URL(request.url).search)).toEqual(['?limit=2&offset=0', '?limit=2&offset=2', '?limit=2&offset=4']);
  });

  it('follows next_page_id until it is null', async () => {
    const { fetch, requests } = scripted([
      json(200, { items: [{ id: 's1' }], next_page_id: 'p2' }),
      json(200, { items: [{ id: 's2' }], next_page_id: 'p3' }),
      json(200, { items: [], next_page_id: null }),
    ]);
    const ids = (await collect(createClient({ baseUrl: BASE, fetch }).sandboxes.iterate({ pageSize: 1 }))).map((item) => item.id);
    expect(ids).toEqual(['s1', 's2']);
    expect(requests.map((request) => new URL(request.url).search)).toEqual(['?limit=1', '?limit=1&page_id=p2', '?limit=1&page_id=p3']);
  });
});

describe('URLs', () => {
  it('keeps a base URL’s path prefix and encodes path parameters', async () => {
    const { fetch, requests } = scripted([json(200, {})]);
    await createClient({ baseUrl: 'https://host.example/agents/', fetch }).webhooks.get('a/b c');
    expect(requests[0]?.url).toBe('https://host.example/agents/api/automation/v1/webhooks/a%2Fb%20c');
  });

  it('repeats array query parameters and leaves out undefined ones', async () => {
    const { fetch, requests } = scripted([json(200, [])]);
    await createClient({ baseUrl: BASE, fetch }).conversations.getMany(['c1', 'c2']);
    expect(new URL(requests[0]?.url ?? '').search).toBe('?ids=c1&ids=c2');
    const page = scripted([json(200, { deliveries: [], total: 0 })]);
    await createClient({ baseUrl: BASE, fetch: page.fetch }).deliveries.list({ status: 'matched' });
    expect(new URL(page.requests[0]?.url ?? '').search).toBe('?status=matched');
  });

  it('refuses a base URL that is not absolute http(s), and an empty id, before sending anything', async () => {
    expect(() => createClient({ baseUrl: 'localhost:3000' })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: 'ftp://host' })).toThrow(/http or https/);
    const { fetch, requests } = scripted([json(200, {})]);
    await expect(createClient({ baseUrl: BASE, fetch }).webhooks.get('')).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });

  it('checks pageSize before the first request', () => {
    const client = createClient({ baseUrl: BASE });
    expect(() => client.automations.iterate({ pageSize: 0 })).toThrow(RangeError);
    expect(() => client.sandboxes.iterate({ pageSize: 101 })).toThrow(RangeError);
  });
});
