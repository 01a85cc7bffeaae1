/**
 * Conformance: `startTasks` repository — the background work of starting a conversation,
 * looked up by id and listed per user, newest first, in cursor pages.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { StartTaskRecord } from '@agent-platform/core';
import { fixtureTime, makeStartTaskRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { itListsByUserNewestFirst } from './paging.js';

export function describeStartTasks(ctx: SuiteContext): void {
  describe('startTasks', () => {
    it('get returns null for an unknown start task', async () => {
      expect(await ctx.adapter.startTasks.get(uniqueId('task'))).toBeNull();
    });

    it('insert then get returns the record', async () => {
      const record = makeStartTaskRecord();
      const failed = makeStartTaskRecord({ status: 'ERROR', detail: 'no sandbox', request: {} });
      await ctx.adapter.startTasks.insert(record);
      await ctx.adapter.startTasks.insert(failed);
      expect(await ctx.adapter.startTasks.get(record.id)).toEqual(record);
      expect(await ctx.adapter.startTasks.get(failed.id)).toEqual(failed);
    });

    it('insert with an existing id throws StorageConflictError and keeps the stored one', async () => {
      const record = makeStartTaskRecord();
      await ctx.adapter.startTasks.insert(record);
      const duplicate = makeStartTaskRecord({ id: record.id, status: 'READY' });
      await expect(ctx.adapter.startTasks.insert(duplicate)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.startTasks.get(record.id)).toEqual(record);
      expect(await ctx.adapter.startTasks.listByUser(duplicate.created_by_user_id, { limit: 10 })).toEqual({
        items: [],
        nextPageId: null,
      });
    });

    itListsByUserNewestFirst<StartTaskRecord>(ctx, {
      name: 'startTasks',
      make: makeStartTaskRecord,
      insert: (adapter, record) => adapter.startTasks.insert(record),
      list: (adapter, userId, options) => adapter.startTasks.listByUser(userId, options),
    });

    it('update replaces the stored record and returns true, through every status', async () => {
      const record = makeStartTaskRecord({ status: 'WORKING' });
      await ctx.adapter.startTasks.insert(record);
      let current: StartTaskRecord = record;
      const steps = ['WAITING_FOR_SANDBOX', 'PREPARING_REPOSITORY', 'STARTING_CONVERSATION', 'READY'] as const;
      for (const [n, status] of steps.entries()) {
        current = {
          ...current,
          status,
          sandbox_id: 'sbx-1',
          app_conversation_id: status === 'READY' ? 'conv-1' : null,
          updated_at: fixtureTime(n + 1),
        };
        expect(await ctx.adapter.startTasks.update(current)).toBe(true);
        expect(await ctx.adapter.startTasks.get(record.id)).toEqual(current);
      }
      expect(await ctx.adapter.startTasks.listByUser(record.created_by_user_id, { limit: 10 })).toEqual({
        items: [current],
        nextPageId: null,
      });
    });

    it('update returns false for an unknown id and stores nothing', async () => {
      const record = makeStartTaskRecord();
      expect(await ctx.adapter.startTasks.update(record)).toBe(false);
      expect(await ctx.adapter.startTasks.get(record.id)).toBeNull();
      expect(await ctx.adapter.startTasks.listByUser(record.created_by_user_id, { limit: 10 })).toEqual({
        items: [],
        nextPageId: null,
      });
    });
  });
}
