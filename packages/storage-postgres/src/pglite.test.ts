/**
 * PGlite specifics: a data directory that outlives the adapter; one connection shared by
 * transactions and plain calls without interleaving them; the adapter's own repositories used
 * from inside a transaction; closing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '@agent-platform/core';
import type { StorageAdapter } from '@agent-platform/core';
import { makeApiKeyRecord, makeConversationEvent, makeConversationRecord, makeSettingsRecord, uniqueId } from '@agent-platform/testing';
import { createPGliteStorage, migrate, MIGRATIONS } from './index.js';

let db: PGlite;
let storage: StorageAdapter;

beforeAll(async () => {
  db = await PGlite.create();
  storage = await createPGliteStorage({ db });
}, 60_000);

afterAll(async () => {
  await storage?.close();
  await db?.close();
});

describe('createPGliteStorage with a data directory', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'agent-platform-pglite-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps what was written after the adapter is closed and the directory reopened', { timeout: 60_000 }, async () => {
    const directory = path.join(dataDir, 'nested', 'pglite');
    const first = await createPGliteStorage({ dataDir: directory });
    expect(first.name).toBe('pglite');
    const settings = makeSettingsRecord();
    const conversation = makeConversationRecord();
    const { seq: _seq, ...event } = makeConversationEvent({ conversation_id: conversation.id });
    await first.settings.put(settings);
    await first.transaction(async (tx) => {
      await tx.conversations.insert(conversation);
      await tx.conversations.appendEvents(conversation.id, [event]);
    });
    await first.close();
    await expect(first.ping()).rejects.toBeInstanceOf(StorageUnavailableError);

    const second = await createPGliteStorage({ dataDir: directory });
    try {
      expect(await second.settings.get(settings.user_id)).toEqual(settings);
      expect(await second.conversations.get(conversation.id)).toEqual(conversation);
      const appended = await second.conversations.appendEvents(conversation.id, [event]);
      expect(appended.map((stored) => stored.seq)).toEqual([1]);
    } finally {
      await second.close();
    }
    // Already migrated: nothing left to apply.
    expect(await migrate({ dataDir: directory })).toEqual({ applied: [], version: MIGRATIONS.length });
  });
});

describe('one connection for transactions and plain calls', () => {
  it('never lets a plain read see half of a transaction', async () => {
    const userId = uniqueId('user');
    const seen: number[] = [];
    const writers = Array.from({ length: 10 }, (_, n) =>
      storage
        .transaction(async (tx) => {
          await tx.apiKeys.insert(makeApiKeyRecord({ user_id: userId }));
          await nextTurn();
          await tx.apiKeys.insert(makeApiKeyRecord({ user_id: userId }));
          if (n % 3 === 0) throw new Error('rolled back');
        })
        .catch(() => undefined),
    );
    const readers = Array.from({ length: 30 }, async () => {
      await nextTurn();
      seen.push((await storage.apiKeys.listByUser(userId)).length);
    });
    await Promise.all([...writers, ...readers]);
    expect(seen.every((count) => count % 2 === 0)).toBe(true);
    expect((await storage.apiKeys.listByUser(userId)).length).toBe(2 * 6);
  });

  it('lets fn read committed state through the adapter itself while its transaction is open', async () => {
    const record = makeSettingsRecord({ values: { language: 'en' } });
    await storage.settings.put(record);
    let runs = 0;
    const inside = await storage.transaction(async (tx) => {
      runs += 1;
      await tx.settings.put({ ...record, values: { ...record.values, language: 'fr' } });
      const committed = await storage.settings.get(record.user_id);
      const own = await tx.settings.get(record.user_id);
      return [committed?.values.language, own?.values.language];
    });
    expect(inside).toEqual(['en', 'fr']);
    expect(runs).toBe(1);
    expect((await storage.settings.get(record.user_id))?.values.language).toBe('fr');
  });

  it('keeps a write fn makes through the adapter beside its transaction, rolled back or not', async () => {
    const outside = makeSettingsRecord();
    const inside = makeSettingsRecord();
    await expect(
      storage.transaction(async (tx) => {
        await tx.settings.put(inside);
        await storage.settings.put(outside);
        expect(await tx.settings.get(inside.user_id)).toEqual(inside);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await storage.settings.get(outside.user_id)).toEqual(outside);
    expect(await storage.settings.get(inside.user_id)).toBeNull();
  });

  it('runs the transaction again when such a write changed what it had read', async () => {
    const record = makeSettingsRecord({ values: { max_iterations: 0 } });
    await storage.settings.put(record);
    let runs = 0;
    await storage.transaction(async (tx) => {
      runs += 1;
      const current = await tx.settings.get(record.user_id);
      if (runs === 1) await storage.settings.put({ ...record, values: { ...record.values, max_iterations: 100 } });
      await tx.settings.put({ ...record, values: { ...record.values, max_iterations: (current?.values.max_iterations ?? 0) + 1 } });
    });
    expect(runs).toBe(2);
    expect((await storage.settings.get(record.user_id))?.values.max_iterations).toBe(101);
  });

  it('queues a call that fn started but that runs after fn settled, instead of refusing it', async () => {
    const record = makeSettingsRecord();
    const later: Promise<unknown>[] = [];
    await storage.transaction(async (tx) => {
      await tx.settings.put(record);
      // Started a few microtasks to a few milliseconds after fn returns: while the transaction
      // closes, while it commits, and after.
      for (let depth = 0; depth < 40; depth += 1) {
        let step: Promise<unknown> = Promise.resolve();
        for (let n = 0; n < depth; n += 1) step = step.then(() => undefined);
        later.push(step.then(() => storage.settings.get(record.user_id)));
      }
      for (const ms of [0, 1, 5]) later.push(sleep(ms).then(() => storage.settings.get(record.user_id)));
    });
    // Each read either ran beside the open transaction (committed state: nothing yet) or after it.
    const seen = await Promise.all(later);
    for (const value of seen) expect([null, record]).toContainEqual(value);
    expect(seen.at(-1)).toEqual(record);
    expect(await storage.settings.get(record.user_id)).toEqual(record);
  });

  it('refuses a transaction started inside a transaction of the same database, instead of waiting forever', async () => {
    await expect(storage.transaction(() => storage.transaction(async () => undefined))).rejects.toThrow(/inside a transaction/);
    // Another adapter over the same instance is the same connection.
    const other = await createPGliteStorage({ db, migrate: false });
    await expect(storage.transaction(() => other.transaction(async () => undefined))).rejects.toThrow(/inside a transaction/);
    await other.close();
  });
});

describe('close', () => {
  it('leaves a PGlite instance it was given open, and refuses calls afterwards', async () => {
    const adapter = await createPGliteStorage({ db, migrate: false });
    await adapter.close();
    await adapter.close();
    expect(db.closed).toBe(false);
    await expect(adapter.settings.get(uniqueId('user'))).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(adapter.transaction(async () => undefined)).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(adapter.ping()).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.ping()).resolves.toBeUndefined();
  });

  it('refuses a dataDir together with a db, and a maxTransactionAttempts below 1', async () => {
    await expect(createPGliteStorage({ db, dataDir: '/tmp/x' })).rejects.toThrow(TypeError);
    await expect(createPGliteStorage({ db, maxTransactionAttempts: 0 })).rejects.toThrow(RangeError);
  });
});
