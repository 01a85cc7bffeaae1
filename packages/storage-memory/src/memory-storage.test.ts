import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { StorageConflictError, StorageUnavailableError } from '@agent-platform/core';
import type { StorageRepositories } from '@agent-platform/core';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeSettingsRecord,
  makeWebhookRecord,
  testStorageAdapter,
  uniqueId,
} from '@agent-platform/testing';
import { DRIVER_NAME, createMemoryStorage } from './index.js';

testStorageAdapter('memory', () => createMemoryStorage());

describe('createMemoryStorage', () => {
  it('is named after the driver', () => {
    expect(DRIVER_NAME).toBe('memory');
    expect(createMemoryStorage().name).toBe('memory');
  });

  it('starts with the seed records, copied', async () => {
    const settings = makeSettingsRecord();
    const key = makeApiKeyRecord();
    const webhook = makeWebhookRecord();
    const storage = createMemoryStorage({ seed: { settings: [settings], apiKeys: [key], webhooks: [webhook] } });
    settings.values.language = 'changed';
    expect((await storage.settings.get(settings.user_id))?.values.language).toBe('en');
    expect(await storage.apiKeys.getByHash(key.key_hash)).toEqual(key);
    expect(await storage.webhooks.getBySource(webhook.org_id, webhook.source)).toEqual(webhook);
  });

  it('refuses a seed that breaks a uniqueness rule', () => {
    const key = makeApiKeyRecord();
    expect(() => createMemoryStorage({ seed: { apiKeys: [key, { ...key, id: uniqueId('key') }] } })).toThrow(
      StorageConflictError,
    );
  });

  it('rejects every call once closed, after letting a running transaction finish', async () => {
    const storage = createMemoryStorage();
    const record = makeApiKeyRecord();
    const running = storage.transaction(async (tx) => {
      await sleep(10);
      await tx.apiKeys.insert(record);
    });
    await storage.close();
    await running;
    await expect(storage.ping()).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.apiKeys.get(record.id)).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.apiKeys.insert(makeApiKeyRecord())).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.transaction(async () => 1)).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it("refuses a transaction's repositories once it has finished", async () => {
    const storage = createMemoryStorage();
    let escaped: StorageRepositories | undefined;
    await storage.transaction(async (tx) => {
      escaped = tx;
    });
    await expect(escaped?.apiKeys.insert(makeApiKeyRecord())).rejects.toThrow(/finished/);
    await expect(escaped?.settings.get('anyone')).rejects.toThrow(/finished/);
  });

  it('rolls back a callback that throws synchronously, and rethrows non-Error values as they are', async () => {
    const storage = createMemoryStorage();
    const record = makeApiKeyRecord();
    const thrown = { reason: 'not an Error' };
    await expect(
      storage.transaction((tx) => {
        void tx.apiKeys.insert(record);
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    expect(await storage.apiKeys.get(record.id)).toBeNull();
  });

  it('gives a hash back to its committed owner when a rolled-back transaction moved it', async () => {
    const storage = createMemoryStorage();
    const original = makeApiKeyRecord();
    await storage.apiKeys.insert(original);
    const usurper = makeApiKeyRecord({ key_hash: original.key_hash, user_id: original.user_id });
    await expect(
      storage.transaction(async (tx) => {
        await tx.apiKeys.delete(original.id);
        await tx.apiKeys.insert(usurper);
        expect(await tx.apiKeys.getByHash(original.key_hash)).toEqual(usurper);
        expect(await storage.apiKeys.getByHash(original.key_hash)).toEqual(original);
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await storage.apiKeys.getByHash(original.key_hash)).toEqual(original);
    expect(await storage.apiKeys.listByUser(original.user_id)).toEqual([original]);
    await expect(storage.apiKeys.insert({ ...usurper, key_hash: uniqueId('hash') })).resolves.toBeUndefined();
  });

  it('shows readers outside a transaction the committed side of an index it changed', async () => {
    const storage = createMemoryStorage();
    const orgId = uniqueId('org');
    const moved = makeWebhookRecord({ org_id: orgId, source: 'old', created_at: fixtureTime(1) });
    const removed = makeWebhookRecord({ org_id: orgId, source: 'gone', created_at: fixtureTime(2) });
    await storage.webhooks.insert(moved);
    await storage.webhooks.insert(removed);
    await storage.transaction(async (tx) => {
      await tx.webhooks.update({ ...moved, source: 'new' });
      await tx.webhooks.delete(orgId, removed.id);
      await tx.webhooks.insert(makeWebhookRecord({ org_id: orgId, source: 'old' }));
      expect(await storage.webhooks.getBySource(orgId, 'old')).toEqual(moved);
      expect(await storage.webhooks.getBySource(orgId, 'new')).toBeNull();
      expect(await storage.webhooks.getBySource(orgId, 'gone')).toEqual(removed);
      expect(await storage.webhooks.list(orgId, { limit: 10, offset: 0 })).toEqual({
        items: [moved, removed],
        total: 2,
      });
    });
    expect((await storage.webhooks.list(orgId, { limit: 10, offset: 0 })).total).toBe(2);
    expect((await storage.webhooks.getBySource(orgId, 'new'))?.id).toBe(moved.id);
  });

  it('commits and rolls back many transactions on a large store', async () => {
    const apiKeys = Array.from({ length: 20_000 }, () => makeApiKeyRecord());
    const storage = createMemoryStorage({ seed: { apiKeys } });
    for (let n = 0; n < 2_000; n += 1) {
      const key = apiKeys[n % apiKeys.length];
      if (!key) throw new Error('unreachable');
      await storage.transaction(async (tx) => {
        await tx.apiKeys.touch(key.id, fixtureTime(n));
        if (n % 2 === 1) throw new Error('rollback');
      }).catch(() => undefined);
    }
    expect((await storage.apiKeys.get(apiKeys[0]?.id ?? ''))?.last_used_at).toBe(fixtureTime(0));
    expect((await storage.apiKeys.get(apiKeys[1]?.id ?? ''))?.last_used_at).toBeNull();
  });
});
