/**
 * `@agent-platform/storage-postgres`: the `StorageAdapter` over PostgreSQL (node-postgres) and
 * over embedded PGlite, with versioned migrations.
 * @module
 */
export { createPostgresStorage } from './create-postgres-storage.js';
export { createPGliteStorage } from './create-pglite-storage.js';
export { migrate, type MigrateOptions } from './migrate-api.js';
export type { AppliedMigration, MigrationResult } from './migrate.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
export type { CommonStorageOptions, GroupCommitLimits, PGliteStorageOptions, PostgresStorageOptions } from './options.js';
export { DEFAULT_TRANSACTION_ATTEMPTS } from './backoff.js';
export { DEFAULT_CONNECTION_TIMEOUT_MS } from './pg-backend.js';
