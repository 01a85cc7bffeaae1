/**
 * Conformance: `sandboxes` repository. Sandboxes are looked up by id alone (the executor's view;
 * callers check ownership) and listed per user, newest first, in cursor pages.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { SandboxRecord } from '@agent-platform/core';
import { fixtureTime, makeSandboxRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { itListsByUserNewestFirst } from './paging.js';

export function describeSandboxes(ctx: SuiteContext): void {
  describe('sandboxes', () => {
    it('get returns null for an unknown sandbox', async () => {
      expect(await ctx.adapter.sandboxes.get(uniqueId('sbx'))).toBeNull();
    });

    it("insert then get returns the record, whoever's it is", async () => {
      const record = makeSandboxRecord();
      const starting = makeSandboxRecord({ status: 'STARTING', exposed_urls: [], runtime: 'docker' });
      await ctx.adapter.sandboxes.insert(record);
      await ctx.adapter.sandboxes.insert(starting);
      expect(await ctx.adapter.sandboxes.get(record.id)).toEqual(record);
      expect(await ctx.adapter.sandboxes.get(starting.id)).toEqual(starting);
    });

    it('insert with an existing id throws StorageConflictError, even for another user, and keeps the stored one', async () => {
      const record = makeSandboxRecord();
      await ctx.adapter.sandboxes.insert(record);
      const duplicate = makeSandboxRecord({ id: record.id, status: 'ERROR' });
      await expect(ctx.adapter.sandboxes.insert(duplicate)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.sandboxes.get(record.id)).toEqual(record);
      expect(await ctx.adapter.sandboxes.listByUser(duplicate.created_by_user_id, { limit: 10 })).toEqual({
        items: [],
        nextPageId: null,
      });
    });

    itListsByUserNewestFirst<SandboxRecord>(ctx, {
      name: 'sandboxes',
      make: makeSandboxRecord,
      insert: (adapter, record) => adapter.sandboxes.insert(record),
      list: (adapter, userId, options) => adapter.sandboxes.listByUser(userId, options),
    });

    it('update replaces the stored record and returns true', async () => {
      const record = makeSandboxRecord({ status: 'STARTING', exposed_urls: [] });
      await ctx.adapter.sandboxes.insert(record);
      const running: SandboxRecord = {
        ...record,
        status: 'RUNNING',
        exposed_urls: [{ name: 'VSCODE', url: 'http://127.0.0.1:8001', port: 8001 }],
        updated_at: fixtureTime(5),
      };
      expect(await ctx.adapter.sandboxes.update(running)).toBe(true);
      expect(await ctx.adapter.sandboxes.get(record.id)).toEqual(running);
      expect(await ctx.adapter.sandboxes.listByUser(record.created_by_user_id, { limit: 10 })).toEqual({
        items: [running],
        nextPageId: null,
      });
    });

    it('update returns false for an unknown id and stores nothing', async () => {
      const record = makeSandboxRecord();
      expect(await ctx.adapter.sandboxes.update(record)).toBe(false);
      expect(await ctx.adapter.sandboxes.get(record.id)).toBeNull();
      expect(await ctx.adapter.sandboxes.listByUser(record.created_by_user_id, { limit: 10 })).toEqual({
        items: [],
        nextPageId: null,
      });
    });

    it('delete removes the sandbox and returns true, then false', async () => {
      const userId = uniqueId('user');
      const kept = makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(1) });
      const deleted = makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(2) });
      await ctx.adapter.sandboxes.insert(kept);
      await ctx.adapter.sandboxes.insert(deleted);
      expect(await ctx.adapter.sandboxes.delete(deleted.id)).toBe(true);
      expect(await ctx.adapter.sandboxes.get(deleted.id)).toBeNull();
      expect(await ctx.adapter.sandboxes.listByUser(userId, { limit: 10 })).toEqual({ items: [kept], nextPageId: null });
      expect(await ctx.adapter.sandboxes.delete(deleted.id)).toBe(false);
      expect(await ctx.adapter.sandboxes.delete(uniqueId('sbx'))).toBe(false);
      // A deleted id is free again.
      await ctx.adapter.sandboxes.insert(deleted);
      expect(await ctx.adapter.sandboxes.get(deleted.id)).toEqual(deleted);
    });
  });
}
