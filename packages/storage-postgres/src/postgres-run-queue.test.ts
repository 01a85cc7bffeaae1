/**
 * The run queue and change feed conformance suites against a real PostgreSQL server: one
 * throwaway database for the file, its runs table emptied before each test; every `open` is a
 * new adapter with its own pool and listener connection, as another process would have.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import type { StorageAdapter } from '@agent-platform/core';
import { testRunQueue } from '@agent-platform/testing';
import { createPostgresStorage, migrate } from './index.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';

const available = await postgresAvailable();

describe.skipIf(!available)('createPostgresStorage: runQueue and changes', () => {
  let database: ThrowawayDatabase;

  beforeAll(async () => {
    database = await createThrowawayDatabase();
    await migrate({ connectionString: database.url });
  });

  afterAll(async () => {
    await database?.drop();
  });

  testRunQueue(
    'postgres',
    async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        // With their reports, which refer to them.
        await client.query('TRUNCATE agent_platform.runs CASCADE');
      } finally {
        await client.end();
      }
      const opened: StorageAdapter[] = [];
      return {
        async open() {
          const storage = await createPostgresStorage({ connectionString: database.url });
          opened.push(storage);
          return storage;
        },
        async close() {
          await Promise.all(opened.map((storage) => storage.close()));
        },
      };
    },
    { timeout: 30_000 },
  );
});
