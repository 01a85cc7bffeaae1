/**
 * Options of the two constructors (and of `migrate`, which takes either).
 * @module
 */
import type { PGlite } from '@electric-sql/pglite';
import type { PoolConfig } from 'pg';
import type { StorageUnavailableError } from '@agent-platform/core';

/** What both constructors take. */
export interface CommonStorageOptions {
  /**
   * Apply pending migrations before the adapter is handed out (default `true`). Turn it off when a
   * deploy step runs them (`agent-platform-migrate`) and the server's database user may not
   * change the schema.
   */
  migrate?: boolean;
  /**
   * How many times a transaction runs before serialization failures (or, with PGlite, a conflicting
   * statement run beside it) give up with a `StorageUnavailableError`; default 15.
   */
  maxTransactionAttempts?: number;
  /**
   * Group commit of inbound deliveries (on by default): deliveries recorded while a batch is being
   * committed wait and go together in the next one — one statement, one commit — and each is
   * answered once the commit holding it is done. A delivery the database refuses fails alone.
   * `false` writes each delivery in a statement of its own.
   */
  groupCommit?: false | GroupCommitLimits;
}

/** The bounds of a group commit. */
export interface GroupCommitLimits {
  /** Most deliveries in one batch; default 64. */
  maxBatch?: number;
  /**
   * Most batches being committed at once; default 1: the next batch gathers while one commits.
   * More makes batches smaller, and each costs the server a statement to parse, plan and flush.
   */
  maxInFlight?: number;
}

/** `createPostgresStorage`: a PostgreSQL server through a node-postgres pool. */
export interface PostgresStorageOptions extends CommonStorageOptions {
  /** `postgres://user:password@host:5432/database`; never echoed in errors with its password. */
  connectionString: string;
  /**
   * Passed to `pg.Pool` (`max`, `idleTimeoutMillis`, `ssl`, ...). `connectionTimeoutMillis`
   * defaults to 10 s, so a database that does not answer becomes a 503 rather than a hang.
   */
  pool?: Omit<PoolConfig, 'connectionString'>;
  /**
   * Told when an idle pooled connection fails (the server restarted, a proxy dropped it); the pool
   * replaces it by itself. For logs; nothing needs to be done.
   */
  onConnectionError?: (error: StorageUnavailableError) => void;
}

/** `createPGliteStorage`: embedded Postgres (WASM) in this process. */
export interface PGliteStorageOptions extends CommonStorageOptions {
  /**
   * Directory of the database files, created when missing. Without it (and without `db`) the
   * database lives in memory and is gone on `close()`.
   */
  dataDir?: string;
  /**
   * An open PGlite instance to use instead; `close()` leaves it open. Several adapters may share
   * one: they queue on its single connection.
   */
  db?: PGlite;
}
