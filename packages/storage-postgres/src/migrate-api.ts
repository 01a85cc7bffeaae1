/**
 * `migrate`: the migrations on their own, for a deploy step (or the `agent-platform-migrate` CLI).
 * @module
 */
import { pgliteBackend } from './create-pglite-storage.js';
import { postgresBackend } from './create-postgres-storage.js';
import { applyMigrations, type MigrationResult } from './migrate.js';
import type { PGliteStorageOptions, PostgresStorageOptions } from './options.js';

/** Where to migrate: a PostgreSQL server, or a PGlite data directory (or instance). */
export type MigrateOptions = Pick<PostgresStorageOptions, 'connectionString' | 'pool'> | Pick<PGliteStorageOptions, 'dataDir' | 'db'>;

/**
 * Applies the pending migrations and reports what it applied. Safe to run from several processes
 * at once, and again: it waits for an advisory lock, and applies each migration once.
 *
 * @example
 * ```ts
 * const { applied, version } = await migrate({ connectionString: process.env.DATABASE_URL! });
 * ```
 */
export async function migrate(options: MigrateOptions): Promise<MigrationResult> {
  const backend =
    'connectionString' in options && options.connectionString !== undefined
      ? postgresBackend({ ...options, pool: { max: 1, ...options.pool } })
      : await pgliteBackend(options as PGliteStorageOptions);
  try {
    return await applyMigrations(backend);
  } finally {
    await backend.close();
  }
}
