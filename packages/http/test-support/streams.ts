/**
 * Clients for the live streams, for tests: an SSE reader over `fetch` that keeps the raw text,
 * a WebSocket that queues its messages, and helpers that store events as an agent would.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { AgentPlatform, ConversationEvent, StorageAdapter } from '@agent-platform/core';
import { WebSocket } from 'ws';
import { KEYS, type Harness } from './harness.js';

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

export interface SseConnection {
  status: number;
  headers: Headers;
  /** The body for a refusal (not 200). */
  body: string;
  /** Everything received so far. */
  raw(): string;
  /** The next message (skipping comments), or a rejection after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseMessage>;
  /** The next `count` messages. */
  take(count: number, timeoutMs?: number): Promise<SseMessage[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(
  baseUrl: string,
  path: string,
  init: { as?: keyof typeof KEYS | null; headers?: Record<string, string>; method?: string } = {},
): Promise<SseConnection> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream', ...init.headers };
  const as = init.as === undefined ? 'alice' : init.as;
  if (as) headers['x-session-api-key'] ??= KEYS[as];
  const response = await fetch(baseUrl + path, { method: init.method ?? 'GET', headers, signal: controller.signal });
  if (response.status !== 200 || init.method === 'HEAD') {
    const body = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body,
      raw: () => body,
      next: () => Promise.reject(new Error('no stream')),
      take: () => Promise.reject(new Error('no stream')),
      ended: Promise.resolve(),
      close: () => controller.abort(),
    };
  }
  let raw = '';
  let pending = '';
  const messages: SseMessage[] = [];
  let wake = null as (() => void) | null;
  let finished = false;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        raw += text;
        pending += text;
        for (let split = pending.indexOf('\n\n'); split >= 0; split = pending.indexOf('\n\n')) {
          const block = pending.slice(0, split);
          pending = pending.slice(split + 2);
          const message: SseMessage = { data: '' };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = line.slice(0, colon);
            const value = line.slice(colon + 2);
            if (field === 'id') message.id = value;
            else if (field === 'event') message.event = value;
            else if (field === 'data') data.push(value);
          }
          if (data.length === 0) continue;
          message.data = data.join('\n');
          messages.push(message);
          wake?.();
        }
      }
    } catch {
      // aborted by close()
    } finally {
      finished = true;
      wake?.();
    }
  })();

  async function next(timeoutMs = 5_000): Promise<SseMessage> {
    const deadline = Date.now() + timeoutMs;
    while (messages.length === 0) {
      if (finished) throw new Error(`the stream ended; received:\n${raw}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message within ${timeoutMs} ms; received:\n${raw}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
    return messages.shift() as SseMessage;
  }

  return {
    status: response.status,
    headers: response.headers,
    body: '',
    raw: () => raw,
    next,
    async take(count, timeoutMs) {
      const taken: SseMessage[] = [];
      for (let i = 0; i < count; i++) taken.push(await next(timeoutMs));
      return taken;
    },
    ended,
    close: () => controller.abort(),
  };
}

/** A WebSocket client whose messages wait in a queue. */
export interface SocketClient {
  socket: WebSocket;
  next(timeoutMs?: number): Promise<Record<string, unknown>>;
  take(count: number, timeoutMs?: number): Promise<Record<string, unknown>[]>;
  /** Nothing arrives within `ms`. */
  quiet(ms: number): Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** Connects; rejects with `{ status, body }` when the upgrade is refused. */
export function openSocket(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<SocketClient> {
  const url = baseUrl.replace(/^http/, 'ws') + path;
  const socket = new WebSocket(url, { headers });
  const messages: Record<string, unknown>[] = [];
  let wake = null as (() => void) | null;
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as Record<string, unknown>);
    wake?.();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  async function next(timeoutMs = 5_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (messages.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0 || socket.readyState === WebSocket.CLOSED) throw new Error(`no message within ${timeoutMs} ms (socket state ${socket.readyState})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 50));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
    return messages.shift() as Record<string, unknown>;
  }
  return new Promise((resolve, reject) => {
    socket.once('open', () =>
      resolve({
        socket,
        next,
        async take(count, timeoutMs) {
          const taken: Record<string, unknown>[] = [];
          for (let i = 0; i < count; i++) taken.push(await next(timeoutMs));
          return taken;
        },
        async quiet(ms) {
          await new Promise((done) => setTimeout(done, ms));
          if (messages.length > 0) throw new Error(`unexpected messages: ${JSON.stringify(messages)}`);
        },
        closed,
        close: () => socket.close(),
      }),
    );
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${response.statusCode}`), { status: response.statusCode, body })));
    });
    socket.once('error', (error) => reject(error));
  });
}

/** Counts the platform's live event watchers (wraps `watchEvents`): how many are running now. */
export function countWatchers(platform: AgentPlatform): () => number {
  let active = 0;
  const conversations = platform.conversations;
  const original = conversations.watchEvents.bind(conversations);
  conversations.watchEvents = async (...args: Parameters<typeof original>) => {
    const stop = await original(...args);
    active += 1;
    let stopped = false;
    return () => {
      if (!stopped) {
        stopped = true;
        active -= 1;
      }
      stop();
    };
  };
  return () => active;
}

/** Waits until `check` holds (polling), or fails after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 5_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An idle conversation of alice's (no message: no agent, no events). */
export async function idleConversation(api: Harness, as: keyof typeof KEYS = 'alice'): Promise<string> {
  const started = await api.request('POST', '/api/v1/app-conversations', { as, json: {} });
  if (started.status !== 200) throw new Error(`start failed: ${started.status} ${started.text}`);
  for (let i = 0; i < 400; i++) {
    const [task] = (await api.request('GET', `/api/v1/app-conversations/start-tasks?ids=${started.json.id}`, { as })).json;
    if (task.status === 'READY') return task.app_conversation_id as string;
    if (task.status === 'ERROR') throw new Error(`start task failed: ${task.detail}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the start task did not finish');
}

/**
 * Stores agent output lines in a conversation and tells the platform, as the change feed tells
 * a process of events another one stored.
 */
export async function storeEvents(platform: AgentPlatform, storage: StorageAdapter, conversationId: string, ...lines: string[]): Promise<ConversationEvent[]> {
  const stored = await storage.conversations.appendEvents(
    conversationId,
    lines.map((line) => ({
      id: randomUUID(),
      conversation_id: conversationId,
      kind: 'agent_output' as const,
      source: 'agent' as const,
      message: line,
      data: { line },
      created_at: new Date().toISOString(),
    })),
  );
  const last = stored.at(-1);
  if (last) platform.conversations.onChange({ type: 'conversation.events', conversationId, seq: last.seq });
  return stored;
}
