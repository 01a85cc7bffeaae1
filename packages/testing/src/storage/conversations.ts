/**
 * Conformance: `conversations` repository and its events. Conversations are looked up by id,
 * listed per user, newest first, in cursor pages, and changed by a guarded patch
 * (`conversation-patches.ts`). Events are appended under a `seq` the adapter
 * assigns — from 0, without gaps, even when appends race — and listed in `seq` order.
 * @module
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { AppConversationRecord, ConversationEvent } from '@agent-platform/core';
import { fixtureTime, makeConversationEvent, makeConversationRecord, makeStartTaskRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { describeConversationPatches } from './conversation-patches.js';
import { GARBLED_PAGE_IDS, collectPages, expectInvalidPageId, expectPageShape, itListsByUserNewestFirst } from './paging.js';

/** Events for `conversationId`, without `seq` (as `appendEvents` takes them). */
export function eventsFor(conversationId: string, count: number, seconds = 0): Omit<ConversationEvent, 'seq'>[] {
  return Array.from({ length: count }, (_, n) => {
    const { seq: _seq, ...event } = makeConversationEvent({
      conversation_id: conversationId,
      message: `event ${n}`,
      created_at: fixtureTime(seconds + n),
    });
    return event;
  });
}

/** The events as stored from `start` on: numbered in order. */
export function numbered(events: readonly Omit<ConversationEvent, 'seq'>[], start = 0): ConversationEvent[] {
  return events.map((event, n) => ({ ...event, seq: start + n }));
}

export function describeConversations(ctx: SuiteContext): void {
  describe('conversations', () => {
    it('get returns null for an unknown conversation, and its events are one empty page', async () => {
      const id = uniqueId('conv');
      expect(await ctx.adapter.conversations.get(id)).toBeNull();
      expect(await ctx.adapter.conversations.listEvents(id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
    });

    it('insert then get returns the record', async () => {
      const record = makeConversationRecord();
      const automated = makeConversationRecord({
        trigger: 'automation',
        run_id: uniqueId('run'),
        sandbox_id: null,
        selected_repository: null,
        selected_branch: null,
        git_provider: null,
        title: null,
        pr_number: [],
        llm_model: null,
        sandbox_status: null,
        execution_status: 'idle',
      });
      await ctx.adapter.conversations.insert(record);
      await ctx.adapter.conversations.insert(automated);
      expect(await ctx.adapter.conversations.get(record.id)).toEqual(record);
      expect(await ctx.adapter.conversations.get(automated.id)).toEqual(automated);
      expect(await ctx.adapter.conversations.listEvents(record.id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
    });

    it('insert with an existing id throws StorageConflictError, even for another user, and keeps the stored one', async () => {
      const record = makeConversationRecord();
      await ctx.adapter.conversations.insert(record);
      const duplicate = makeConversationRecord({ id: record.id, title: 'other' });
      await expect(ctx.adapter.conversations.insert(duplicate)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.conversations.get(record.id)).toEqual(record);
      expect(await ctx.adapter.conversations.listByUser(duplicate.created_by_user_id, { limit: 10 })).toEqual({
        items: [],
        nextPageId: null,
      });
    });

    itListsByUserNewestFirst<AppConversationRecord>(ctx, {
      name: 'conversations',
      make: makeConversationRecord,
      insert: (adapter, record) => adapter.conversations.insert(record),
      list: (adapter, userId, options) => adapter.conversations.listByUser(userId, options),
    });

    describeConversationPatches(ctx);

    it('appendEvents numbers events from 0 on, continues after the last stored one, and returns them as stored', async () => {
      const conversation = makeConversationRecord();
      await ctx.adapter.conversations.insert(conversation);
      const first = eventsFor(conversation.id, 3);
      const stored = await ctx.adapter.conversations.appendEvents(conversation.id, first);
      expect(stored).toEqual(numbered(first));
      const second = eventsFor(conversation.id, 2, 10);
      expect(await ctx.adapter.conversations.appendEvents(conversation.id, second)).toEqual(numbered(second, 3));
      expect(await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).toEqual({
        items: [...numbered(first), ...numbered(second, 3)],
        nextPageId: null,
      });
    });

    it('appendEvents ignores a seq given with the events', async () => {
      const conversation = makeConversationRecord();
      await ctx.adapter.conversations.insert(conversation);
      const given = [
        makeConversationEvent({ conversation_id: conversation.id, seq: 41 }),
        makeConversationEvent({ conversation_id: conversation.id, seq: 0, kind: 'message', source: 'user', message: 'Hi', data: null }),
      ];
      const stored = await ctx.adapter.conversations.appendEvents(conversation.id, given);
      expect(stored.map((event) => event.seq)).toEqual([0, 1]);
      expect(stored).toEqual(given.map((event, n) => ({ ...event, seq: n })));
      expect((await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).items).toEqual(stored);
    });

    it('appendEvents of no events returns none and changes nothing', async () => {
      const conversation = makeConversationRecord();
      await ctx.adapter.conversations.insert(conversation);
      expect(await ctx.adapter.conversations.appendEvents(conversation.id, [])).toEqual([]);
      const events = eventsFor(conversation.id, 1);
      expect(await ctx.adapter.conversations.appendEvents(conversation.id, events)).toEqual(numbered(events));
    });

    it('appendEvents to an unknown conversation throws StorageConflictError and stores nothing', async () => {
      const id = uniqueId('conv');
      await expect(ctx.adapter.conversations.appendEvents(id, eventsFor(id, 2))).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.conversations.listEvents(id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
    });

    it('each conversation numbers its own events, and lists only its own', async () => {
      const one = makeConversationRecord();
      const two = makeConversationRecord({ created_by_user_id: one.created_by_user_id });
      await ctx.adapter.conversations.insert(one);
      await ctx.adapter.conversations.insert(two);
      const oneEvents = eventsFor(one.id, 2);
      const twoEvents = eventsFor(two.id, 3);
      await ctx.adapter.conversations.appendEvents(one.id, oneEvents.slice(0, 1));
      await ctx.adapter.conversations.appendEvents(two.id, twoEvents.slice(0, 2));
      await ctx.adapter.conversations.appendEvents(one.id, oneEvents.slice(1));
      await ctx.adapter.conversations.appendEvents(two.id, twoEvents.slice(2));
      expect((await ctx.adapter.conversations.listEvents(one.id, { limit: 10 })).items).toEqual(numbered(oneEvents));
      expect((await ctx.adapter.conversations.listEvents(two.id, { limit: 10 })).items).toEqual(numbered(twoEvents));
    });

    it('concurrent appends to one conversation get contiguous seqs, none shared and none skipped', async () => {
      const conversation = makeConversationRecord();
      await ctx.adapter.conversations.insert(conversation);
      const batches = Array.from({ length: ctx.concurrency }, (_, n) => eventsFor(conversation.id, 1 + (n % 3), n * 10));
      // Half the appends run alone, half inside transactions that yield first.
      const results = await Promise.all(
        batches.map((batch, n) =>
          n % 2 === 0
            ? ctx.adapter.conversations.appendEvents(conversation.id, batch)
            : ctx.adapter.transaction(async (tx) => {
                await nextTurn();
                return tx.conversations.appendEvents(conversation.id, batch);
              }),
        ),
      );
      const total = batches.reduce((sum, batch) => sum + batch.length, 0);
      results.forEach((stored, n) => {
        const batch = batches[n] ?? [];
        const start = stored[0]?.seq ?? -1;
        // Each batch lands in one piece, in its own order.
        expect(stored).toEqual(numbered(batch, start));
      });
      const seqs = results
        .flat()
        .map((event) => event.seq)
        .sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: total }, (_, n) => n));
      const { items, nextPageId } = await ctx.adapter.conversations.listEvents(conversation.id, { limit: total + 1 });
      expect(nextPageId).toBeNull();
      expect(items).toEqual(results.flat().sort((a, b) => a.seq - b.seq));
    });

    it('listEvents pages in seq order with nextPageId, never repeating or skipping an event', async () => {
      const conversation = makeConversationRecord();
      await ctx.adapter.conversations.insert(conversation);
      const events = eventsFor(conversation.id, 7);
      await ctx.adapter.conversations.appendEvents(conversation.id, events.slice(0, 4));
      await ctx.adapter.conversations.appendEvents(conversation.id, events.slice(4));
      for (const limit of [1, 2, 3, 7, 8]) {
        const pages = await collectPages((options) => ctx.adapter.conversations.listEvents(conversation.id, options), limit);
        expectPageShape(pages, limit, events.length);
        expect(pages.flatMap((page) => page.items)).toEqual(numbered(events));
      }
    });

    it('delete removes the conversation, its events and the start tasks that name it, and nothing else', async () => {
      const userId = uniqueId('user');
      const conversation = makeConversationRecord({ created_by_user_id: userId, created_at: fixtureTime(1) });
      const kept = makeConversationRecord({ created_by_user_id: userId, created_at: fixtureTime(2) });
      await ctx.adapter.conversations.insert(conversation);
      await ctx.adapter.conversations.insert(kept);
      await ctx.adapter.conversations.appendEvents(conversation.id, eventsFor(conversation.id, 3));
      const keptEvents = eventsFor(kept.id, 2);
      await ctx.adapter.conversations.appendEvents(kept.id, keptEvents);
      const task = makeStartTaskRecord({ created_by_user_id: userId, status: 'READY', app_conversation_id: conversation.id, created_at: fixtureTime(1) });
      const otherTask = makeStartTaskRecord({ created_by_user_id: userId, status: 'READY', app_conversation_id: kept.id, created_at: fixtureTime(2) });
      const pendingTask = makeStartTaskRecord({ created_by_user_id: userId, created_at: fixtureTime(3) });
      // Another user's task naming the id (it cannot in practice) is not theirs to lose.
      const strangerTask = makeStartTaskRecord({ status: 'READY', app_conversation_id: conversation.id });
      for (const record of [task, otherTask, pendingTask, strangerTask]) await ctx.adapter.startTasks.insert(record);

      expect(await ctx.adapter.conversations.delete(conversation.id)).toBe(true);
      expect(await ctx.adapter.conversations.get(conversation.id)).toBeNull();
      expect(await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
      expect(await ctx.adapter.conversations.listByUser(userId, { limit: 10 })).toEqual({ items: [kept], nextPageId: null });
      expect(await ctx.adapter.startTasks.get(task.id)).toBeNull();
      expect(await ctx.adapter.startTasks.listByUser(userId, { limit: 10 })).toEqual({ items: [pendingTask, otherTask], nextPageId: null });
      expect(await ctx.adapter.startTasks.get(strangerTask.id)).toEqual(strangerTask);
      expect((await ctx.adapter.conversations.listEvents(kept.id, { limit: 10 })).items).toEqual(numbered(keptEvents));

      // Gone for appends too; the id may be used again, its events numbered from 0.
      await expect(ctx.adapter.conversations.appendEvents(conversation.id, eventsFor(conversation.id, 1))).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.conversations.delete(conversation.id)).toBe(false);
      await ctx.adapter.conversations.insert(conversation);
      const fresh = eventsFor(conversation.id, 2);
      expect(await ctx.adapter.conversations.appendEvents(conversation.id, fresh)).toEqual(numbered(fresh));
    });

    it('delete returns false for an unknown id', async () => {
      expect(await ctx.adapter.conversations.delete(uniqueId('conv'))).toBe(false);
    });

    it('listEvents rejects a page id it did not hand out with a VALIDATION_FAILED PlatformError', async () => {
      const conversation = makeConversationRecord();
      await ctx.adapter.conversations.insert(conversation);
      await ctx.adapter.conversations.appendEvents(conversation.id, eventsFor(conversation.id, 3));
      for (const pageId of GARBLED_PAGE_IDS) {
        await expectInvalidPageId(ctx.adapter.conversations.listEvents(conversation.id, { limit: 10, pageId }));
      }
    });
  });
}
