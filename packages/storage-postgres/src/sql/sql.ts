/**
 * The one interface the repositories run SQL through, so they are written once for node-postgres
 * (a pool, or a pooled client inside a transaction) and for PGlite (the instance, or one of its
 * transactions).
 * @module
 */
import type { ChangeFeed } from '@agent-platform/core';

/** Rows of a statement and how many rows it wrote (for UPDATE / DELETE / INSERT). */
export interface SqlResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Sql {
  /** One statement with `$1`-style parameters. */
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>>;
  /**
   * One statement that may fail on a constraint (the repository turns the failure into a
   * `StorageConflictError`). Inside a transaction it runs under a savepoint, so a caught conflict
   * leaves the transaction usable, as it does with the memory adapter; outside, it is `query`.
   */
  guardedQuery<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>>;
  /** A script of several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
}

/** How a backend runs a transaction. */
export type Isolation =
  /** Concurrent transactions behave as if run one after another; retried on serialization failures. */
  | 'serializable'
  /** Each statement sees what committed before it; run once (migrations, under an advisory lock). */
  | 'read-committed';

/** What the adapter needs from a database connection, whichever driver supplies it. */
export interface Backend {
  /**
   * Change announcements between the adapters over this database (`storage.changes`): over
   * `LISTEN` / `NOTIFY` with PostgreSQL, in process with PGlite. `close()` ends it.
   */
  readonly changes: ChangeFeed;
  /** `postgres` or `pglite`, for logs. */
  readonly name: string;
  /** Statements outside any transaction, each committed on its own. */
  readonly sql: Sql;
  /** Runs `fn` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (sql: Sql) => Promise<T>, isolation?: Isolation): Promise<T>;
  /**
   * Starts housekeeping that nobody waits for (pruning expired dedup claims) outside whatever
   * transaction the caller is in; failures are dropped. `close()` waits for it.
   */
  detach(task: (sql: Sql) => Promise<unknown>): void;
  ping(): Promise<void>;
  close(): Promise<void>;
}
