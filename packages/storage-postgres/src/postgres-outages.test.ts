/**
 * A database that is not there, or drops its connections: calls throw StorageUnavailableError
 * (answered 503) without the password of the URL, nothing crashes the process, and the pool
 * recovers by itself.
 */
import { inspect } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '@agent-platform/core';
import type { StorageAdapter } from '@agent-platform/core';
import { makeDeliveryRecord, makeSettingsRecord, uniqueId } from '@agent-platform/testing';
import { createPostgresStorage, migrate } from './index.js';
import { POOL_APPLICATION_NAME } from './pg-backend.js';
import { READY_FOR_QUERY, startHoldingProxy } from '../test-support/holding-proxy.js';
import { createThrowawayDatabase, postgresAvailable, terminateConnections, type ThrowawayDatabase } from '../test-support/postgres-server.js';

const PASSWORD = 's3cret';
/** Nothing listens on port 1. */
const UNREACHABLE = `postgres://u:${PASSWORD}@127.0.0.1:1/x`;

/** The rejection of `promise`, checked to be a StorageUnavailableError that nowhere shows the password. */
async function unavailableWithoutPassword(promise: Promise<unknown>): Promise<StorageUnavailableError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(StorageUnavailableError);
  const unavailable = error as StorageUnavailableError;
  expect(unavailable.message).not.toContain(PASSWORD);
  expect(inspect(unavailable, { depth: 10 })).not.toContain(PASSWORD);
  return unavailable;
}

describe('an unreachable server', () => {
  it('fails createPostgresStorage (which migrates) and migrate with StorageUnavailableError', async () => {
    const error = await unavailableWithoutPassword(createPostgresStorage({ connectionString: UNREACHABLE }));
    expect(error.message).toMatch(/ECONNREFUSED/);
    await unavailableWithoutPassword(migrate({ connectionString: UNREACHABLE }));
  });

  it('makes every call and ping throw StorageUnavailableError, without the password', async () => {
    const storage = await createPostgresStorage({ connectionString: UNREACHABLE, migrate: false });
    try {
      await unavailableWithoutPassword(storage.ping());
      await unavailableWithoutPassword(storage.settings.get(uniqueId('user')));
      await unavailableWithoutPassword(storage.settings.put(makeSettingsRecord()));
      await unavailableWithoutPassword(storage.deliveries.list(uniqueId('org'), { limit: 10, offset: 0 }));
      await unavailableWithoutPassword(storage.sandboxes.listByUser(uniqueId('user'), { limit: 10 }));
      await unavailableWithoutPassword(storage.transaction((tx) => tx.deliveries.insert(makeDeliveryRecord())));
    } finally {
      await storage.close();
    }
  });

  it('keeps the password out of errors for a percent-encoded password too', async () => {
    const storage = await createPostgresStorage({ connectionString: 'postgres://u:p%40ss%2Fw0rd@127.0.0.1:1/x', migrate: false });
    try {
      const error = await unavailableWithoutPassword(storage.ping());
      expect(inspect(error, { depth: 10 })).not.toMatch(/p@ss\/w0rd|p%40ss%2Fw0rd/);
    } finally {
      await storage.close();
    }
  });

  it('refuses calls after close with StorageUnavailableError', async () => {
    const storage = await createPostgresStorage({ connectionString: UNREACHABLE, migrate: false });
    await storage.close();
    await storage.close();
    await unavailableWithoutPassword(storage.settings.get(uniqueId('user')));
    await unavailableWithoutPassword(storage.ping());
  });
});

const available = await postgresAvailable();

describe.skipIf(!available)('a server that drops its connections', () => {
  let database: ThrowawayDatabase;
  let storage: StorageAdapter;
  const reported: StorageUnavailableError[] = [];
  let onReport: (() => void) | undefined;

  /** Resolves once `count` lost connections have been reported (the test's timeout bounds it). */
  function reportsReach(count: number): Promise<void> {
    return new Promise((resolve) => {
      onReport = () => {
        if (reported.length >= count) resolve();
      };
      onReport();
    });
  }

  beforeAll(async () => {
    database = await createThrowawayDatabase();
    storage = await createPostgresStorage({
      connectionString: database.url,
      pool: { max: 4 },
      onConnectionError: (error) => {
        reported.push(error);
        onReport?.();
      },
    });
  });

  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it('reports idle connections it lost, without crashing, and goes on with new ones', async () => {
    // Four idle connections in the pool.
    await Promise.all(Array.from({ length: 4 }, () => storage.transaction((tx) => tx.settings.get(uniqueId('user')))));
    // The pool's connections only: anything else on the database (an autovacuum worker) is not
    // the pool's to report, and counting it would make the wait below endless.
    const terminated = await terminateConnections(database.name, POOL_APPLICATION_NAME);
    expect(terminated).toBeGreaterThan(0);
    // Each backend ends in its own time, and until the pool has read that a connection ended it
    // may hand it to the next call: wait for every one to be reported, however long that takes.
    await reportsReach(terminated);
    expect(reported).toHaveLength(terminated);
    for (const error of reported) expect(error).toBeInstanceOf(StorageUnavailableError);
    const record = makeSettingsRecord();
    await storage.settings.put(record);
    expect(await storage.settings.get(record.user_id)).toEqual(record);
    await expect(storage.ping()).resolves.toBeUndefined();
  });

  it('fails a transaction whose connection is dropped with StorageUnavailableError, then recovers', async () => {
    const record = makeSettingsRecord();
    const outcome = storage.transaction(async (tx) => {
      await tx.settings.put(record);
      await terminateConnections(database.name);
      await sleep(50);
      await tx.settings.get(record.user_id);
    });
    await expect(outcome).rejects.toBeInstanceOf(StorageUnavailableError);
    // Nothing of it was committed; the next transaction gets a working connection.
    expect(await storage.settings.get(record.user_id)).toBeNull();
    await storage.transaction((tx) => tx.settings.put(record));
    expect(await storage.settings.get(record.user_id)).toEqual(record);
  });

  it('does not crash when a connection ends as it is handed to a waiting transaction', async () => {
    const proxy = await startHoldingProxy(database.url);
    const applicationName = 'agent-platform-held';
    const own = await createPostgresStorage({ connectionString: proxy.url, pool: { max: 1, application_name: applicationName } });
    try {
      const held = proxy.hold();
      const ping = own.ping();
      // Waits for the only connection, which the ping has.
      const waiting = own.transaction((tx) => tx.settings.get(uniqueId('user')));
      await held.until((bytes) => bytes.includes(READY_FOR_QUERY));
      await terminateConnections(database.name, applicationName);
      await held.until((_bytes, serverEnded) => serverEnded);
      // Read in one go: the ping's answer hands the connection to the transaction, and the server's
      // error follows at once, before the transaction's code runs. Unheard, it would end the process.
      held.release();
      await expect(ping).resolves.toBeUndefined();
      await expect(waiting).rejects.toBeInstanceOf(StorageUnavailableError);
      const record = makeSettingsRecord();
      await own.transaction((tx) => tx.settings.put(record));
      expect(await own.settings.get(record.user_id)).toEqual(record);
    } finally {
      await own.close();
      await proxy.close();
    }
  });
});
