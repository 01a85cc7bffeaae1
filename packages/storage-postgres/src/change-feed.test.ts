/**
 * The change feeds beyond the conformance suite: `runs.pending` coalescing; over PostgreSQL, a
 * listener whose connection is killed reconnects, says `reset`, and hears what is published after,
 * without crashing anything, and malformed notifications are ignored; over PGlite, a publish from
 * inside a transaction does not wait for it.
 */
import { inspect } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '@agent-platform/core';
import type { PublishedChange, StorageAdapter, StorageChange } from '@agent-platform/core';
import { makeSettingsRecord } from '@agent-platform/testing';
import { CHANGE_CHANNEL, coalescePending, decodeChange } from './change-feed.js';
import { createPGliteStorage, createPostgresStorage, migrate } from './index.js';
import { LISTENER_APPLICATION_NAME } from './pg-backend.js';
import { useMigratedPGlite } from '../test-support/pglite-instance.js';
import { ADMIN_URL, createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';

async function until(what: string, done: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const same = (a: unknown) => (b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe('coalescePending', () => {
  it('folds runs.pending sent while one is in flight into one that follows it, and sends every other change', async () => {
    const sent: PublishedChange[] = [];
    const gates: (() => void)[] = [];
    const publish = coalescePending((change) => {
      sent.push(change);
      return new Promise<void>((resolve) => gates.push(resolve));
    });
    const first = publish({ type: 'runs.pending' });
    const more = Array.from({ length: 5 }, () => publish({ type: 'runs.pending' }));
    const cancel = publish({ type: 'run.cancelled', orgId: 'o', runId: 'r' });
    expect(sent).toEqual([{ type: 'runs.pending' }, { type: 'run.cancelled', orgId: 'o', runId: 'r' }]);
    gates.shift()!();
    await first;
    await until('the trailing send', () => sent.length === 3);
    expect(sent[2]).toEqual({ type: 'runs.pending' });
    for (const open of gates.splice(0)) open();
    await Promise.all([...more, cancel]);
    expect(sent).toHaveLength(3);
    // Nothing in flight: the next one goes at once.
    const next = publish({ type: 'runs.pending' });
    expect(sent).toHaveLength(4);
    for (const open of gates.splice(0)) open();
    await next;
  });

  it('sends the trailing one even when the one in flight failed, and passes failures on', async () => {
    let calls = 0;
    const publish = coalescePending(async () => {
      calls += 1;
      if (calls === 1) throw new StorageUnavailableError('down');
    });
    const first = publish({ type: 'runs.pending' });
    const trailing = publish({ type: 'runs.pending' });
    await expect(first).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(trailing).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});

describe('decodeChange', () => {
  it('takes the three published kinds with their members only, and nothing else', () => {
    expect(decodeChange('{"type":"run.cancelled","orgId":"o","runId":"r","extra":1}')).toEqual({ type: 'run.cancelled', orgId: 'o', runId: 'r' });
    expect(decodeChange('{"type":"github-links.changed","orgId":"o"}')).toEqual({ type: 'github-links.changed' });
    for (const payload of [
      undefined,
      '',
      'not json',
      'null',
      '[]',
      '{"type":"reset"}',
      '{"type":"run.cancelled","orgId":"o"}',
      '{"type":"automations.changed","orgId":1,"source":"s"}',
    ]) {
      expect(decodeChange(payload), String(payload)).toBeNull();
    }
  });
});

const available = await postgresAvailable();

describe.skipIf(!available)('the PostgreSQL listener', () => {
  let database: ThrowawayDatabase;
  const adapters: StorageAdapter[] = [];

  beforeAll(async () => {
    database = await createThrowawayDatabase();
    await migrate({ connectionString: database.url });
  });

  afterAll(async () => {
    await Promise.all(adapters.map((storage) => storage.close()));
    await database?.drop();
  });

  async function open(options: { onConnectionError?: (error: StorageUnavailableError) => void } = {}): Promise<StorageAdapter> {
    const storage = await createPostgresStorage({ connectionString: database.url, migrate: false, ...options });
    adapters.push(storage);
    return storage;
  }

  async function admin<T>(text: string, params: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  const listeners = async (): Promise<number> =>
    (
      await admin<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [
        database.name,
        LISTENER_APPLICATION_NAME,
      ])
    )[0]!.n;

  it('opens one listener connection per adapter, on the first subscribe, outside the pool', async () => {
    const storage = await open();
    const before = await listeners();
    await storage.changes.publish({ type: 'runs.pending' });
    expect(await listeners()).toBe(before);
    await storage.changes.subscribe(() => undefined);
    await storage.changes.subscribe(() => undefined);
    expect(await listeners()).toBe(before + 1);
    await storage.close();
    // The server notices the ended connection a moment later.
    for (let n = 0; n < 100 && (await listeners()) !== before; n += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await listeners()).toBe(before);
  });

  it('reconnects after its connection is killed, emits reset, and delivers changes published afterwards', async () => {
    const reported: StorageUnavailableError[] = [];
    const storage = await open({ onConnectionError: (error) => reported.push(error) });
    const publisher = await open();
    const seen: StorageChange[] = [];
    await storage.changes.subscribe((change) => seen.push(change));
    const before: PublishedChange = { type: 'run.cancelled', orgId: 'org-1', runId: 'run-before' };
    await publisher.changes.publish(before);
    await until('the change before', () => seen.some(same(before)));

    const killed = await admin<{ killed: boolean }>(
      'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
      [database.name, LISTENER_APPLICATION_NAME],
    );
    expect(killed).toEqual([{ killed: true }]);
    await until('the reset', () => seen.some((change) => change.type === 'reset'));
    expect(reported.length).toBeGreaterThan(0);
    expect(reported[0]).toBeInstanceOf(StorageUnavailableError);

    const after: PublishedChange = { type: 'automations.changed', orgId: 'org-1', source: 'linear' };
    await publisher.changes.publish(after);
    await until('the change after', () => seen.some(same(after)));
    // The pool was not touched: the adapter still works.
    const record = makeSettingsRecord();
    await storage.settings.put(record);
    expect(await storage.settings.get(record.user_id)).toEqual(record);
  });

  it('ignores notifications on its channel that are not changes', async () => {
    const storage = await open();
    const seen: StorageChange[] = [];
    await storage.changes.subscribe((change) => seen.push(change));
    for (const payload of ['not json', '{"type":"reset"}', '{"type":"run.cancelled"}', '']) {
      await admin('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, payload]);
    }
    await storage.changes.publish({ type: 'run.cancelled', orgId: 'o', runId: 'valid' });
    await until('the valid change', () => seen.length > 0);
    // Notifications from one session arrive in order: the malformed ones came first and were dropped.
    expect(seen).toEqual([{ type: 'run.cancelled', orgId: 'o', runId: 'valid' }]);
  });

  it('stops listening and closes promptly, and refuses publish and subscribe afterwards', async () => {
    const storage = await createPostgresStorage({ connectionString: database.url, migrate: false });
    const seen: StorageChange[] = [];
    await storage.changes.subscribe((change) => seen.push(change));
    const started = Date.now();
    await storage.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(storage.changes.publish({ type: 'runs.pending' })).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.changes.subscribe(() => undefined)).rejects.toBeInstanceOf(StorageUnavailableError);
    const other = await open();
    await other.changes.publish({ type: 'run.cancelled', orgId: 'o', runId: 'late' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([]);
  });

  it('rejects a subscribe whose connection cannot be made with StorageUnavailableError, without the password', async () => {
    const storage = await createPostgresStorage({ connectionString: 'postgres://u:s3cret@127.0.0.1:1/x', migrate: false });
    try {
      const error = await storage.changes
        .subscribe(() => undefined)
        .then(
          () => undefined,
          (reason: unknown) => reason,
        );
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect(inspect(error, { depth: 10 })).not.toContain('s3cret');
      await expect(storage.changes.publish({ type: 'runs.pending' })).rejects.toBeInstanceOf(StorageUnavailableError);
    } finally {
      await storage.close();
    }
  });
});

describe('the PGlite feed', () => {
  const instance = useMigratedPGlite();

  it('publishes from inside a transaction without waiting for it, to every adapter over the instance', async () => {
    const [a, b] = [await createPGliteStorage({ db: instance(), migrate: false }), await createPGliteStorage({ db: instance(), migrate: false })];
    try {
      const seen: StorageChange[] = [];
      await b.changes.subscribe((change) => seen.push(change));
      const record = makeSettingsRecord();
      await a.transaction(async (tx) => {
        await tx.settings.put(record);
        await a.changes.publish({ type: 'run.cancelled', orgId: 'o', runId: 'inside' });
        await b.changes.publish({ type: 'runs.pending' });
      });
      await until('both changes', () => seen.length === 2);
      expect(await b.settings.get(record.user_id)).toEqual(record);
      await a.close();
      await expect(a.changes.publish({ type: 'runs.pending' })).rejects.toBeInstanceOf(StorageUnavailableError);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('stops the subscriptions of an adapter when it closes, and keeps the others', async () => {
    const [a, b] = [await createPGliteStorage({ db: instance(), migrate: false }), await createPGliteStorage({ db: instance(), migrate: false })];
    const heardByA: StorageChange[] = [];
    const heardByB: StorageChange[] = [];
    await a.changes.subscribe((change) => heardByA.push(change));
    await b.changes.subscribe((change) => heardByB.push(change));
    await a.close();
    await b.changes.publish({ type: 'run.cancelled', orgId: 'o', runId: 'after-close' });
    await until('the change on b', () => heardByB.length === 1);
    expect(heardByA).toEqual([]);
    await b.close();
  });
});
