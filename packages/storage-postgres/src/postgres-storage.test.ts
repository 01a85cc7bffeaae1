/**
 * The conformance suite against a real PostgreSQL server: a throwaway database of this file's own,
 * a fresh adapter (its own pool) per test.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { testStorageAdapter } from '@agent-platform/testing';
import { createPostgresStorage } from './index.js';
import { createThrowawayDatabase, postgresAvailable, type ThrowawayDatabase } from '../test-support/postgres-server.js';
import { tamperAuditEntry } from '../test-support/tamper-audit.js';

const available = await postgresAvailable();

describe.skipIf(!available)('createPostgresStorage', () => {
  let database: ThrowawayDatabase;

  beforeAll(async () => {
    database = await createThrowawayDatabase();
  });

  afterAll(async () => {
    await database?.drop();
  });

  testStorageAdapter('postgres', () => createPostgresStorage({ connectionString: database.url }), {
    timeout: 30_000,
    // Through a connection of its own, as someone with the database's address would.
    tamperAuditEntry: tamperAuditEntry(async (text, params) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await client.query(text, params);
      } finally {
        await client.end();
      }
    }),
  });
});
