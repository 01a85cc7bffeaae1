/**
 * Conformance: `apiKeys` repository.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import { fixtureTime, makeApiKeyRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

export function describeApiKeys(ctx: SuiteContext): void {
  describe('apiKeys', () => {
    it('get and getByHash return null for unknown keys', async () => {
      expect(await ctx.adapter.apiKeys.get(uniqueId('key'))).toBeNull();
      expect(await ctx.adapter.apiKeys.getByHash('0'.repeat(64))).toBeNull();
    });

    it('insert then get and getByHash return the record', async () => {
      const record = makeApiKeyRecord({ last_used_at: fixtureTime(5) });
      await ctx.adapter.apiKeys.insert(record);
      expect(await ctx.adapter.apiKeys.get(record.id)).toEqual(record);
      expect(await ctx.adapter.apiKeys.getByHash(record.key_hash)).toEqual(record);
    });

    it('insert with an existing id throws StorageConflictError and keeps the stored key', async () => {
      const record = makeApiKeyRecord();
      await ctx.adapter.apiKeys.insert(record);
      const duplicate = makeApiKeyRecord({ id: record.id, user_id: record.user_id, name: 'other' });
      await expect(ctx.adapter.apiKeys.insert(duplicate)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.apiKeys.get(record.id)).toEqual(record);
      expect(await ctx.adapter.apiKeys.getByHash(duplicate.key_hash)).toBeNull();
      expect(await ctx.adapter.apiKeys.listByUser(record.user_id)).toEqual([record]);
    });

    it('insert with an existing key_hash throws StorageConflictError and stores nothing', async () => {
      const record = makeApiKeyRecord();
      await ctx.adapter.apiKeys.insert(record);
      const duplicate = makeApiKeyRecord({ key_hash: record.key_hash });
      await expect(ctx.adapter.apiKeys.insert(duplicate)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.apiKeys.get(duplicate.id)).toBeNull();
      expect(await ctx.adapter.apiKeys.getByHash(record.key_hash)).toEqual(record);
      expect(await ctx.adapter.apiKeys.listByUser(duplicate.user_id)).toEqual([]);
    });

    it("listByUser returns only the user's keys, oldest first", async () => {
      const userId = uniqueId('user');
      const second = makeApiKeyRecord({ user_id: userId, created_at: fixtureTime(20) });
      const third = makeApiKeyRecord({ user_id: userId, created_at: fixtureTime(30) });
      const first = makeApiKeyRecord({ user_id: userId, created_at: fixtureTime(10) });
      const someoneElse = makeApiKeyRecord({ org_id: first.org_id, created_at: fixtureTime(15) });
      for (const record of [second, someoneElse, third, first]) await ctx.adapter.apiKeys.insert(record);
      expect(await ctx.adapter.apiKeys.listByUser(userId)).toEqual([first, second, third]);
      expect(await ctx.adapter.apiKeys.listByUser(someoneElse.user_id)).toEqual([someoneElse]);
    });

    it('listByUser returns an empty array for a user without keys', async () => {
      expect(await ctx.adapter.apiKeys.listByUser(uniqueId('user'))).toEqual([]);
    });

    it('touch sets last_used_at and leaves every other field alone', async () => {
      const record = makeApiKeyRecord();
      await ctx.adapter.apiKeys.insert(record);
      await ctx.adapter.apiKeys.touch(record.id, fixtureTime(60));
      const touched = { ...record, last_used_at: fixtureTime(60) };
      expect(await ctx.adapter.apiKeys.get(record.id)).toEqual(touched);
      expect(await ctx.adapter.apiKeys.getByHash(record.key_hash)).toEqual(touched);
      expect(await ctx.adapter.apiKeys.listByUser(record.user_id)).toEqual([touched]);
      await ctx.adapter.apiKeys.touch(record.id, fixtureTime(120));
      expect((await ctx.adapter.apiKeys.get(record.id))?.last_used_at).toBe(fixtureTime(120));
    });

    it('touch of an unknown id resolves and creates nothing', async () => {
      const id = uniqueId('key');
      await expect(ctx.adapter.apiKeys.touch(id, fixtureTime(1))).resolves.toBeUndefined();
      expect(await ctx.adapter.apiKeys.get(id)).toBeNull();
    });

    it('delete returns true and removes the key from every lookup', async () => {
      const record = makeApiKeyRecord();
      const kept = makeApiKeyRecord({ user_id: record.user_id, created_at: fixtureTime(1) });
      await ctx.adapter.apiKeys.insert(record);
      await ctx.adapter.apiKeys.insert(kept);
      expect(await ctx.adapter.apiKeys.delete(record.id)).toBe(true);
      expect(await ctx.adapter.apiKeys.get(record.id)).toBeNull();
      expect(await ctx.adapter.apiKeys.getByHash(record.key_hash)).toBeNull();
      expect(await ctx.adapter.apiKeys.listByUser(record.user_id)).toEqual([kept]);
    });

    it('delete returns false for an unknown or already deleted id', async () => {
      expect(await ctx.adapter.apiKeys.delete(uniqueId('key'))).toBe(false);
      const record = makeApiKeyRecord();
      await ctx.adapter.apiKeys.insert(record);
      expect(await ctx.adapter.apiKeys.delete(record.id)).toBe(true);
      expect(await ctx.adapter.apiKeys.delete(record.id)).toBe(false);
    });

    it('a deleted key frees its id and hash for a new insert', async () => {
      const record = makeApiKeyRecord();
      await ctx.adapter.apiKeys.insert(record);
      await ctx.adapter.apiKeys.delete(record.id);
      const again = makeApiKeyRecord({ id: record.id, key_hash: record.key_hash, name: 'again' });
      await ctx.adapter.apiKeys.insert(again);
      expect(await ctx.adapter.apiKeys.getByHash(record.key_hash)).toEqual(again);
    });
  });
}
