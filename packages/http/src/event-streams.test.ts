/**
 * The live streams of a conversation's events, on every binding: Server-Sent Events
 * (`/api/v1/app-conversations/{id}/events/stream`) and the WebSocket (`/sockets/events/{id}`).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { createCommandAgentRunner, type SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { agentPlatformPlugin } from './fastify.js';
import { ALL_BINDINGS, KEYS, startHarness, type Harness } from '../test-support/harness.js';
import { countWatchers, eventually, idleConversation, openSocket, openSse, storeEvents } from '../test-support/streams.js';

const AGENT = ['echo "task: $AGENT_PLATFORM_INSTRUCTIONS"', 'sleep 0.2', `echo '{"kind":"tool_call","tool":"ls"}'`, 'sleep 0.2', 'echo done'].join('; ');
const stream = (id: string) => `/api/v1/app-conversations/${id}/events/stream`;
const seqs = (messages: { id?: string }[]) => messages.map((message) => Number(message.id));

describe.each(ALL_BINDINGS)('live conversation events on %s', (binding) => {
  let api: Harness;
  let runtime: SandboxRuntime;
  let watchers: () => number;
  beforeAll(async () => {
    runtime = createProcessRuntime();
    api = await startHarness(binding, {
      platform: { runtime, agent: createCommandAgentRunner({ command: AGENT }) },
      heartbeatMs: 150,
      limits: { requestTimeoutMs: 300, headersTimeoutMs: 300 },
    });
    watchers = countWatchers(api.platform);
  });
  afterAll(async () => {
    await api.close();
    await runtime.close();
  });

  describe('Server-Sent Events', () => {
    it('sends the stored events, then each new one as it is stored, in order, in the text/event-stream format', async () => {
      const id = await idleConversation(api);
      await storeEvents(api.platform, api.storage, id, 'one', 'two');
      const sse = await openSse(api.baseUrl, stream(id));
      expect(sse.status).toBe(200);
      expect(sse.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(sse.headers.get('cache-control')).toBe('no-cache');
      const stored = await sse.take(2);
      expect(seqs(stored)).toEqual([0, 1]);
      await storeEvents(api.platform, api.storage, id, 'three');
      await storeEvents(api.platform, api.storage, id, 'four', 'five');
      const live = await sse.take(3);
      expect(seqs(live)).toEqual([2, 3, 4]);
      const event = JSON.parse(live[0]!.data);
      expect(event).toMatchObject({ conversation_id: id, seq: 2, kind: 'agent_output', source: 'agent', message: 'three', data: { line: 'three' } });
      expect(live[0]!.event).toBe('agent_output');
      // Exactly the documented framing: id, event, one data line, a blank line.
      expect(sse.raw()).toContain(`id: 2\nevent: agent_output\ndata: ${JSON.stringify(event)}\n\n`);
      expect(sse.raw().startsWith('retry: ')).toBe(true);
      sse.close();
    });

    it('follows a real agent run: the same events, in the same order, as the events page', async () => {
      const started = await api.request('POST', '/api/v1/app-conversations', { json: { initial_message: 'stream me' } });
      let conversationId: string | null = null;
      for (let i = 0; i < 400 && !conversationId; i++) {
        const [task] = (await api.request('GET', `/api/v1/app-conversations/start-tasks?ids=${started.json.id}`)).json;
        conversationId = task.app_conversation_id;
        if (!conversationId) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const sse = await openSse(api.baseUrl, stream(conversationId as string));
      const received = [];
      for (;;) {
        const message = await sse.next(10_000);
        received.push(JSON.parse(message.data));
        if (message.event === 'status') break;
      }
      sse.close();
      const page = await api.request('GET', `/api/v1/app-conversations/${conversationId}/events`);
      expect(received).toEqual(page.json.items);
      expect(received.map((event) => event.seq)).toEqual(received.map((_, index) => index));
    });

    it('resumes after Last-Event-ID (or ?last_event_id=): nothing missed, nothing repeated', async () => {
      const id = await idleConversation(api);
      await storeEvents(api.platform, api.storage, id, 'a', 'b', 'c');
      const first = await openSse(api.baseUrl, stream(id));
      const seen = await first.take(3);
      first.close();
      // Stored while nobody listened.
      await storeEvents(api.platform, api.storage, id, 'd', 'e');
      const resumed = await openSse(api.baseUrl, stream(id), { headers: { 'last-event-id': seen.at(-1)!.id! } });
      const rest = await resumed.take(2);
      await storeEvents(api.platform, api.storage, id, 'f');
      rest.push(await resumed.next());
      expect(seqs([...seen, ...rest])).toEqual([0, 1, 2, 3, 4, 5]);
      resumed.close();

      const byQuery = await openSse(api.baseUrl, `${stream(id)}?last_event_id=4`);
      expect(seqs(await byQuery.take(1))).toEqual([5]);
      byQuery.close();
      // The header (what EventSource sends on reconnecting) wins over the URL it reconnects to.
      const both = await openSse(api.baseUrl, `${stream(id)}?last_event_id=0`, { headers: { 'last-event-id': '3' } });
      expect(seqs(await both.take(2))).toEqual([4, 5]);
      both.close();
    });

    it('answers 422 for a Last-Event-ID it never handed out, 404 for a conversation not the caller’s, 401 without a key', async () => {
      const id = await idleConversation(api);
      await eventually(() => watchers() === 0, 5_000, 'earlier watchers stopping');
      for (const bad of ['abc', '-1', '1.5', '01', '1e3']) {
        const answer = await openSse(api.baseUrl, stream(id), { headers: { 'last-event-id': bad } });
        expect(answer.status, bad).toBe(422);
        expect(JSON.parse(answer.body).detail[0].loc).toEqual(['header', 'last-event-id']);
      }
      const badQuery = await openSse(api.baseUrl, `${stream(id)}?last_event_id=x`);
      expect(badQuery.status).toBe(422);
      expect(JSON.parse(badQuery.body).detail[0].loc).toEqual(['query', 'last_event_id']);
      for (const as of ['bob', 'mallory'] as const) {
        const foreign = await openSse(api.baseUrl, stream(id), { as });
        expect(foreign.status, as).toBe(404);
        expect(foreign.headers.get('content-type')).toContain('application/json');
        expect(JSON.parse(foreign.body)).toEqual({ detail: 'Conversation not found' });
      }
      expect((await openSse(api.baseUrl, stream('conv_unknown'))).status).toBe(404);
      expect((await openSse(api.baseUrl, stream(id), { as: null })).status).toBe(401);
      expect((await openSse(api.baseUrl, stream(id), { as: null, headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      // Nothing was watched for any refusal.
      expect(watchers()).toBe(0);
      const bearer = await openSse(api.baseUrl, stream(id), { as: null, headers: { authorization: `Bearer ${KEYS.alice}` } });
      expect(bearer.status).toBe(200);
      bearer.close();
    });

    it('stops the watcher when the client disconnects', async () => {
      const id = await idleConversation(api);
      await storeEvents(api.platform, api.storage, id, 'x');
      const before = watchers();
      const sse = await openSse(api.baseUrl, stream(id));
      await sse.next();
      expect(watchers()).toBe(before + 1);
      sse.close();
      await eventually(() => watchers() === before, 5_000, 'the watcher stopping');
    });

    it('pings an idle stream, and outlives the server’s request timeout', async () => {
      const id = await idleConversation(api);
      const sse = await openSse(api.baseUrl, stream(id));
      // requestTimeoutMs is 300 here: it bounds receiving the request, not the answer.
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(sse.raw()).toContain(': ping\n\n');
      await storeEvents(api.platform, api.storage, id, 'late');
      expect(JSON.parse((await sse.next()).data).message).toBe('late');
      sse.close();
    });

    it('answers HEAD with the headers only', async () => {
      const id = await idleConversation(api);
      const before = watchers();
      const head = await openSse(api.baseUrl, stream(id), { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      await eventually(() => watchers() === before, 2_000, 'the HEAD watcher stopping');
    });

    it('ends open streams when the server closes', async () => {
      const local = await startHarness(binding, { platform: { runtime, agent: createCommandAgentRunner({ command: AGENT }) } });
      const id = await idleConversation(local);
      const sse = await openSse(local.baseUrl, stream(id));
      const began = Date.now();
      await local.close();
      await sse.ended;
      expect(Date.now() - began).toBeLessThan(5_000);
    });
  });

  describe('WebSocket /sockets/events/{id}', () => {
    const socketPath = (id: string, query = '') => `/sockets/events/${id}${query}`;

    it('sends each new event in the agent-server shape; resend_all=true sends the stored ones first', async () => {
      const id = await idleConversation(api);
      const [stored] = await storeEvents(api.platform, api.storage, id, 'before');
      const fresh = await openSocket(api.baseUrl, socketPath(id), { 'x-session-api-key': KEYS.alice });
      await fresh.quiet(100);
      const all = await openSocket(api.baseUrl, socketPath(id, '?resend_all=true'), { authorization: `Bearer ${KEYS.alice}` });
      expect(await all.next()).toEqual({ line: 'before', id: stored!.id, timestamp: stored!.created_at, source: 'agent', kind: 'agent_output' });
      await storeEvents(api.platform, api.storage, id, 'after-1', 'after-2');
      expect((await fresh.take(2)).map((event) => event.line)).toEqual(['after-1', 'after-2']);
      expect((await all.take(2)).map((event) => event.line)).toEqual(['after-1', 'after-2']);
      fresh.close();
      all.close();
    });

    it('takes the key from ?session_api_key= (browsers cannot set headers on a socket)', async () => {
      const id = await idleConversation(api);
      await storeEvents(api.platform, api.storage, id, 'a', 'b');
      const socket = await openSocket(api.baseUrl, socketPath(id, `?session_api_key=${KEYS.alice}&resend_all=True`));
      expect((await socket.take(2)).map((event) => event.line)).toEqual(['a', 'b']);
      socket.close();
    });

    it('refuses the upgrade: 401 without a valid key, 404 for a conversation not the caller’s, 400 for two keys', async () => {
      const id = await idleConversation(api);
      await eventually(() => watchers() === 0, 5_000, 'earlier watchers stopping');
      const refusal = (path: string, headers?: Record<string, string>) =>
        openSocket(api.baseUrl, path, headers).then(
          () => ({ status: 101, body: '' }),
          (error: { status?: number; body?: string }) => error,
        );
      expect(await refusal(socketPath(id))).toMatchObject({
        status: 401,
        body: JSON.stringify({ detail: 'Missing API key: send X-Session-API-Key, Authorization: Bearer or ?session_api_key=' }),
      });
      expect(await refusal(socketPath(id, '?session_api_key=wrong-key'))).toMatchObject({ status: 401, body: JSON.stringify({ detail: 'Invalid API key' }) });
      expect(await refusal(socketPath(id), { authorization: 'Bearer wrong-key' })).toMatchObject({ status: 401 });
      expect(await refusal(socketPath(id, `?session_api_key=${KEYS.bob}`))).toMatchObject({
        status: 404,
        body: JSON.stringify({ detail: 'Conversation not found' }),
      });
      expect(await refusal(socketPath(id, `?session_api_key=${KEYS.mallory}&resend_all=true`))).toMatchObject({ status: 404 });
      expect(await refusal(socketPath('conv_unknown', `?session_api_key=${KEYS.alice}`))).toMatchObject({ status: 404 });
      expect(await refusal(socketPath(id, `?session_api_key=${KEYS.alice}`), { 'x-session-api-key': KEYS.bob })).toMatchObject({ status: 400 });
      expect(await refusal(`/sockets/elsewhere?session_api_key=${KEYS.alice}`)).toMatchObject({ status: 404 });
      expect(watchers()).toBe(0);
    });

    it('stops the watcher when the socket closes', async () => {
      const id = await idleConversation(api);
      const before = watchers();
      const socket = await openSocket(api.baseUrl, socketPath(id, `?session_api_key=${KEYS.alice}`));
      expect(watchers()).toBe(before + 1);
      socket.close();
      await socket.closed;
      await eventually(() => watchers() === before, 5_000, 'the watcher stopping');
    });

    it('closes open sockets (1001) when the server closes', async () => {
      const local = await startHarness(binding, { platform: { runtime, agent: createCommandAgentRunner({ command: AGENT }) } });
      const id = await idleConversation(local);
      const socket = await openSocket(local.baseUrl, socketPath(id, `?session_api_key=${KEYS.alice}`));
      await local.close();
      expect((await socket.closed).code).toBe(1001);
    });
  });
});

describe('live streams under a prefix (Fastify plugin)', () => {
  it('serves the SSE route and the socket under the plugin’s prefix; sockets: false leaves upgrades alone', async () => {
    const runtime = createProcessRuntime();
    const api = await startHarness('fastify', { platform: { runtime, agent: createCommandAgentRunner({ command: AGENT }) } });
    // fetch (undici) opens a spare connection when a request is aborted; a bare Fastify waits for it on close.
    const app = Fastify({ forceCloseConnections: true });
    await app.register(agentPlatformPlugin, { platform: api.platform, prefix: '/platform' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const bare = Fastify();
    await bare.register(agentPlatformPlugin, { platform: api.platform, sockets: false });
    try {
      const id = await idleConversation(api);
      await storeEvents(api.platform, api.storage, id, 'prefixed');
      const sse = await openSse(base, `/platform${stream(id)}`);
      expect(JSON.parse((await sse.next()).data).message).toBe('prefixed');
      sse.close();
      const socket = await openSocket(base, `/platform/sockets/events/${id}?resend_all=true&session_api_key=${KEYS.alice}`);
      expect((await socket.next()).line).toBe('prefixed');
      socket.close();
      await expect(openSocket(base, `/sockets/events/${id}?session_api_key=${KEYS.alice}`)).rejects.toMatchObject({ status: 404 });
      expect(bare.server.listenerCount('upgrade')).toBe(0);
    } finally {
      await app.close();
      await bare.close();
      await api.close();
      await runtime.close();
    }
  });
});
