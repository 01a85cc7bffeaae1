/**
 * `createPostgresStorage`: the adapter over a PostgreSQL server.
 * @module
 */
import type { StorageAdapter } from '@agent-platform/core';
import { checkAttempts } from './backoff.js';
import type { PostgresStorageOptions } from './options.js';
import { createPgBackend } from './pg-backend.js';
import type { Backend } from './sql/sql.js';
import { openStorage } from './storage.js';

/**
 * A `StorageAdapter` over PostgreSQL (named `postgres`), through a node-postgres pool. Pending
 * migrations are applied before it resolves, unless `migrate: false`.
 *
 * Transactions are SERIALIZABLE and run again (with jittered backoff) after a serialization
 * failure or deadlock, so `fn` may run more than once: keep side effects other than its `tx`
 * writes out of it. A database that cannot be reached makes calls throw
 * `StorageUnavailableError` (503); the pool reconnects by itself when it is back.
 *
 * @throws StorageUnavailableError when migrating and the database cannot be reached.
 * @example
 * ```ts
 * const storage = await createPostgresStorage({ connectionString: process.env.DATABASE_URL!, pool: { max: 20 } });
 * const platform = createAgentPlatform({ storage, ... });
 * ```
 */
export async function createPostgresStorage(options: PostgresStorageOptions): Promise<StorageAdapter> {
  return openStorage(postgresBackend(options), options);
}

export function postgresBackend(options: PostgresStorageOptions): Backend {
  if (typeof options.connectionString !== 'string' || options.connectionString.length === 0) {
    throw new TypeError('createPostgresStorage: connectionString is required (postgres://user:password@host:5432/database)');
  }
  return createPgBackend({
    connectionString: options.connectionString,
    ...(options.pool ? { pool: options.pool } : {}),
    maxTransactionAttempts: checkAttempts(options.maxTransactionAttempts),
    ...(options.onConnectionError ? { onConnectionError: options.onConnectionError } : {}),
  });
}
