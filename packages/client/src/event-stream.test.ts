/**
 * `streamConversationEvents` against the real handler: over TCP (the Node listener) with the
 * server dropping connections midway, and in process (`createFetchHandler` as `fetch`).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  type AgentPlatform,
  type ConversationEvent,
  type SandboxRuntime,
  type StorageAdapter,
} from '@agent-platform/core';
import { createFetchHandler } from '@agent-platform/http';
import { createNodeHandler } from '@agent-platform/http/node';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentPlatformConnectionError, isAgentPlatformError } from './transport/errors.js';
import { readServerSentEvents, streamConversationEvents } from './conversation-events/event-stream.js';
import { createTransport, type Transport } from './transport/transport.js';

const ALICE = 'alice-stream-key-0123456789';
const BOB = 'bob-stream-key-0123456789';

let runtime: SandboxRuntime;
let storage: StorageAdapter;
let platform: AgentPlatform;
let server: Server;
let baseUrl: string;
/** Stream requests the server drops: after this many whole events, plus half of the next one. */
const drops: number[] = [];
/** The `Last-Event-ID` of each stream request, in order (`null`: none). */
const resumedFrom: (string | null)[] = [];
let activeWatchers = 0;

beforeAll(async () => {
  runtime = createProcessRuntime();
  storage = createMemoryStorage();
  platform = createAgentPlatform({
    storage,
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    runtime,
    agent: createCommandAgentRunner({ command: 'echo hello' }),
  });
  await platform.apiKeys.seed({ userId: 'alice', orgId: 'acme', key: ALICE });
  await platform.apiKeys.seed({ userId: 'bob', orgId: 'acme', key: BOB });
  const watch = platform.conversations.watchEvents.bind(platform.conversations);
  platform.conversations.watchEvents = async (...args) => {
    const stop = await watch(...args);
    activeWatchers += 1;
    let stopped = false;
    return () => {
      if (!stopped) activeWatchers -= 1;
      stopped = true;
      stop();
    };
  };
  const handler = createNodeHandler({ platform });
  server = createServer((request, response) => {
    if (request.url?.includes('/events/stream')) {
      resumedFrom.push((request.headers['last-event-id'] as string | undefined) ?? null);
      const keep = drops.shift();
      if (keep !== undefined) dropAfter(response, keep);
    }
    void handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await runtime.close();
});

/** Lets `events` whole events through, writes half of the next one, then cuts the connection. */
function dropAfter(response: import('node:http').ServerResponse, events: number): void {
  const write = response.write.bind(response) as (chunk: string) => boolean;
  let seen = 0;
  response.write = ((chunk: string) => {
    if (!chunk.startsWith('id: ')) return write(chunk);
    seen += 1;
    if (seen <= events) return write(chunk);
    write(chunk.slice(0, Math.floor(chunk.length / 2)));
    setTimeout(() => response.socket?.destroy(), 20);
    return true;
  }) as typeof response.write;
}

async function conversation(): Promise<string> {
  const task = await platform.conversations.start({ userId: 'alice', orgId: 'acme' }, {});
  for (let i = 0; i < 400; i++) {
    const [current] = await platform.conversations.tasks({ userId: 'alice', orgId: 'acme' }, [task.id]);
    if (current?.app_conversation_id) return current.app_conversation_id;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no conversation');
}

async function store(conversationId: string, ...lines: string[]): Promise<void> {
  const stored = await storage.conversations.appendEvents(
    conversationId,
    lines.map((line) => ({
      id: randomUUID(),
      conversation_id: conversationId,
      kind: 'agent_output' as const,
      source: 'agent' as const,
      message: line,
      data: null,
      created_at: new Date().toISOString(),
    })),
  );
  platform.conversations.onChange({ type: 'conversation.events', conversationId, seq: (stored.at(-1) as ConversationEvent).seq });
}

const transport = (key = ALICE, options: { fetch?: typeof fetch; base?: string } = {}): Transport =>
  createTransport({ baseUrl: options.base ?? baseUrl, apiKey: key, ...(options.fetch ? { fetch: options.fetch } : {}) });

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error(`${what} did not happen`);
}

describe('streamConversationEvents', () => {
  it('resumes across connections the server drops midway: every event once, in order', async () => {
    const id = await conversation();
    await store(id, 'a', 'b', 'c');
    resumedFrom.length = 0;
    // First connection: two events and half of the third; second: one more and half of one.
    drops.push(2, 1);
    const seen: ConversationEvent[] = [];
    const controller = new AbortController();
    for await (const event of streamConversationEvents(transport(), id, { signal: controller.signal, retryDelayMs: 10 })) {
      seen.push(event);
      if (seen.length === 3) await store(id, 'd', 'e');
      if (seen.length === 5) await store(id, 'f');
      if (seen.length === 6) break;
    }
    expect(seen.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(seen.map((event) => event.message)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(resumedFrom.slice(0, 3)).toEqual([null, '1', '2']);
    // Leaving the loop closed the connection, and the server stopped watching.
    await waitFor(() => activeWatchers === 0, 'the watcher stopping');
  });

  it('starts at fromSeq, and works in process with createFetchHandler as fetch', async () => {
    const id = await conversation();
    await store(id, 'a', 'b', 'c');
    const handler = createFetchHandler(platform);
    const inProcess = transport(ALICE, { base: 'http://in-process', fetch: (input, init) => handler(new Request(input, init)) });
    const seen: number[] = [];
    for await (const event of streamConversationEvents(inProcess, id, { fromSeq: 1 })) {
      seen.push(event.seq);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([1, 2]);
    await waitFor(() => activeWatchers === 0, 'the in-process watcher stopping');
  });

  it('rejects at once for answers a retry cannot change: 404 (not the caller’s), 401', async () => {
    const id = await conversation();
    resumedFrom.length = 0;
    for (const [key, status] of [
      [BOB, 404],
      ['wrong-key-0123456789', 401],
    ] as const) {
      const error = await streamConversationEvents(transport(key), id, { retryDelayMs: 10 })
        .next()
        .catch((failure: unknown) => failure);
      expect(isAgentPlatformError(error), String(error)).toBe(true);
      expect((error as { status: number }).status).toBe(status);
    }
    expect(resumedFrom).toHaveLength(2);
  });

  it('rejects with the signal’s reason when aborted while waiting for events', async () => {
    const id = await conversation();
    const controller = new AbortController();
    const iterator = streamConversationEvents(transport(), id, { signal: controller.signal });
    const pending = iterator.next();
    setTimeout(() => controller.abort(new Error('enough')), 100);
    await expect(pending).rejects.toThrow('enough');
    await waitFor(() => activeWatchers === 0, 'the watcher stopping');
  });

  it('gives up after maxRetries failed attempts in a row with a connection error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await streamConversationEvents(transport(ALICE, { base: `http://127.0.0.1:${port}` }), 'conv_x', { retryDelayMs: 5, maxRetries: 2 })
      .next()
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(AgentPlatformConnectionError);
  });
});

describe('readServerSentEvents', () => {
  const body = (...chunks: string[]) =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
          controller.close();
        },
      }),
    );
  const read = async (response: Response) => {
    const messages = [];
    for await (const message of readServerSentEvents(response)) messages.push(message);
    return messages;
  };

  it('parses fields across chunk boundaries, CRLF, CR and LF lines, comments, multi-line data and a BOM', async () => {
    const messages = await read(
      body(
        '\uFEFFretry: 3000\n\n: ping\n\nid: 1\nevent: a\nda',
        'ta: {"x":1}\r',
        '\n\r\nid: 2\rdata: line one\rdata:line two\r\r',
        'data: no id field\n\nid: 3\ndata: unterminated',
      ),
    );
    expect(messages).toEqual([
      { id: '1', event: 'a', data: '{"x":1}' },
      { id: '2', data: 'line one\nline two' },
      // The last id stays until another one comes, as EventSource keeps it.
      { id: '2', data: 'no id field' },
    ]);
  });
});

describe('streamConversationEvents against something that is not the event stream', () => {
  it('rejects at once for a 200 that is not text/event-stream', async () => {
    let calls = 0;
    const fake = transport(ALICE, {
      base: 'http://elsewhere',
      fetch: async () => {
        calls += 1;
        return new Response('<html>login</html>', { status: 200, headers: { 'content-type': 'text/html' } });
      },
    });
    const error = await streamConversationEvents(fake, 'conv_x', { retryDelayMs: 5 })
      .next()
      .catch((failure: unknown) => failure);
    expect(isAgentPlatformError(error) && error.detail).toBe('The answer is not an event stream');
    expect(calls).toBe(1);
  });

  it('retries a 503 and goes on once the server is back', async () => {
    const id = await conversation();
    await store(id, 'a');
    const handler = createFetchHandler(platform);
    let calls = 0;
    const flaky = transport(ALICE, {
      base: 'http://in-process',
      fetch: async (input, init) => {
        calls += 1;
        if (calls === 1)
          return new Response(JSON.stringify({ detail: 'Service temporarily unavailable; retry later' }), {
            status: 503,
            headers: { 'content-type': 'application/json' },
          });
        return handler(new Request(input, init));
      },
    });
    for await (const event of streamConversationEvents(flaky, id, { retryDelayMs: 5 })) {
      expect(event.message).toBe('a');
      break;
    }
    expect(calls).toBe(2);
  });
});
