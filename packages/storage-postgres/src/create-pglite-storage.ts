/**
 * `createPGliteStorage`: the adapter over embedded Postgres (PGlite, WASM) in this process.
 * @module
 */
import { mkdir } from 'node:fs/promises';
import type { StorageAdapter } from '@agent-platform/core';
import { checkAttempts } from './backoff.js';
import type { PGliteStorageOptions } from './options.js';
import { createPGliteBackend } from './pglite-backend.js';
import type { Backend } from './sql/sql.js';
import { openStorage } from './storage.js';

/**
 * A `StorageAdapter` over PGlite (named `pglite`): in `dataDir`, in memory, or on an instance
 * passed as `db`. Pending migrations are applied before it resolves, unless `migrate: false`.
 *
 * PGlite has one connection: transactions run one at a time and other calls wait for the one in
 * progress. Creating a database takes a few seconds; reopening one, under one.
 *
 * @example
 * ```ts
 * const storage = await createPGliteStorage({ dataDir: './.agent-platform/pglite' });
 * ```
 */
export async function createPGliteStorage(options: PGliteStorageOptions = {}): Promise<StorageAdapter> {
  return openStorage(await pgliteBackend(options), options);
}

export async function pgliteBackend(options: PGliteStorageOptions): Promise<Backend> {
  if (options.db && options.dataDir !== undefined) {
    throw new TypeError('createPGliteStorage: give a dataDir or a db, not both');
  }
  const maxTransactionAttempts = checkAttempts(options.maxTransactionAttempts);
  if (options.db) return createPGliteBackend(options.db, { owned: false, maxTransactionAttempts });
  // Loaded on demand: programs on a PostgreSQL server never load the WASM build.
  const { PGlite } = await import('@electric-sql/pglite');
  if (options.dataDir !== undefined) await mkdir(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir === undefined ? {} : { dataDir: options.dataDir });
  return createPGliteBackend(db, { owned: true, maxTransactionAttempts });
}
