/**
 * The pieces under the live streams: the queue a watcher fills, the SSE text with heartbeats,
 * and finding a conversation's next seq.
 */
import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, type ConversationEvent } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { nextEventSeq } from './streaming/conversation-events.js';
import { LiveQueue } from './streaming/live-queue.js';
import { formatServerSentEvent, serverSentEventText } from './streaming/sse.js';
import type { ServerSentEvent } from './exchange/types.js';

describe('LiveQueue', () => {
  it('hands items over in order, and return() settles a waiting next() at once and stops the producer', async () => {
    let stopped = 0;
    const queue = new LiveQueue<number>({ onClose: () => stopped++ });
    queue.push(1);
    expect(await queue.next()).toEqual({ done: false, value: 1 });
    const waiting = queue.next();
    queue.push(2);
    expect(await waiting).toEqual({ done: false, value: 2 });
    const blocked = queue.next();
    await queue.return();
    expect(await blocked).toEqual({ done: true, value: undefined });
    expect(stopped).toBe(1);
    queue.push(3);
    expect(await queue.next()).toEqual({ done: true, value: undefined });
    await queue.return();
    expect(stopped).toBe(1);
  });

  it('past maxItems stops the producer, then gives what it holds and ends', async () => {
    let stopped = 0;
    const queue = new LiveQueue<number>({ maxItems: 3, onClose: () => stopped++ });
    for (let i = 0; i < 5; i++) queue.push(i);
    expect(stopped).toBe(1);
    const items = [];
    for await (const item of queue) items.push(item);
    expect(items).toEqual([0, 1, 2]);
  });

  it('gives what it holds before a failure, then the failure', async () => {
    const queue = new LiveQueue<number>();
    queue.push(1);
    queue.fail(new Error('broken'));
    expect(await queue.next()).toEqual({ done: false, value: 1 });
    await expect(queue.next()).rejects.toThrow('broken');
  });
});

describe('Server-Sent Events text', () => {
  it('formats id, event and each data line; no field value can break a line', () => {
    expect(formatServerSentEvent({ id: '7', event: 'status', data: '{"a":1}' })).toBe('id: 7\nevent: status\ndata: {"a":1}\n\n');
    expect(formatServerSentEvent({ data: 'one\ntwo\r\nthree' })).toBe('data: one\ndata: two\ndata: three\n\n');
    expect(formatServerSentEvent({ id: '1\n2', event: 'a\rb', data: '' })).toBe('id: 1 2\nevent: a b\ndata: \n\n');
  });

  it('starts with retry:, pings while idle, and return() while waiting settles at once and returns the source', async () => {
    const source = new LiveQueue<ServerSentEvent>();
    let returned = false;
    const wrapped: AsyncIterable<ServerSentEvent> = {
      [Symbol.asyncIterator]: () => ({
        next: () => source.next(),
        return: () => {
          returned = true;
          return source.return();
        },
      }),
    };
    const text = serverSentEventText(wrapped, 30);
    expect((await text.next()).value).toMatch(/^retry: \d+\n\n$/);
    expect((await text.next()).value).toBe(': ping\n\n');
    source.push({ id: '0', data: 'x' });
    expect((await text.next()).value).toBe('id: 0\ndata: x\n\n');
    const waiting = text.next();
    await text.return?.();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(returned).toBe(true);
  });
});

describe('nextEventSeq', () => {
  it('is the number of stored events, for any count', async () => {
    const storage = createMemoryStorage();
    const platform = createAgentPlatform({ storage, secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }), publicUrl: 'http://localhost' });
    const principal = { userId: 'u', orgId: 'o' };
    const now = new Date().toISOString();
    await storage.conversations.insert({
      id: 'conv_1',
      created_by_user_id: 'u',
      org_id: 'o',
      run_id: null,
      sandbox_id: null,
      selected_repository: null,
      selected_branch: null,
      git_provider: null,
      title: null,
      trigger: 'api',
      pr_number: [],
      llm_model: null,
      sandbox_status: null,
      execution_status: 'idle',
      metrics: null,
      version: 0,
      created_at: now,
      updated_at: now,
    } as Parameters<typeof storage.conversations.insert>[0]);
    let count = 0;
    for (const target of [0, 1, 2, 3, 5, 8, 64, 65, 130]) {
      const events: Omit<ConversationEvent, 'seq'>[] = [];
      for (; count < target; count++)
        events.push({ id: `e${count}`, conversation_id: 'conv_1', kind: 'agent_output', source: 'agent', message: String(count), data: null, created_at: now });
      if (events.length) await storage.conversations.appendEvents('conv_1', events);
      expect(await nextEventSeq(platform, principal, 'conv_1'), `${target} events`).toBe(target);
    }
    await expect(nextEventSeq(platform, { userId: 'other', orgId: 'o' }, 'conv_1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
