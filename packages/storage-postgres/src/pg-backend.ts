/**
 * The node-postgres backend: a `pg` Pool from a connection string.
 *
 * - Statements outside a transaction go to the pool, each committed alone (READ COMMITTED); one
 *   that hits a deadlock or serialization failure did nothing, and runs again.
 * - A transaction takes a client of its own, runs `BEGIN ISOLATION LEVEL SERIALIZABLE`, and is
 *   run again from the start (with jittered backoff) when PostgreSQL reports a serialization
 *   failure or deadlock (40001, 40P01), up to `maxTransactionAttempts` times.
 * - Connection failures become `StorageUnavailableError`. The pool's `error` event (an idle
 *   client's connection dropped, e.g. the server restarted) is handled, and so is a transaction
 *   client's from the moment the pool hands it out, so neither can crash the process; the pool
 *   then opens new connections on demand, so the adapter recovers by itself.
 * - The change feed listens on a connection of its own, outside the pool (`pg-change-feed.ts`).
 * @module
 */
import pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import { StorageUnavailableError } from '@agent-platform/core';
import { backoff } from './backoff.js';
import { createPgChangeFeed } from './pg-change-feed.js';
import { isRetryable, redactorFor, toStorageError, unavailable } from './sql/errors.js';
import type { Backend, Isolation, Sql, SqlResult } from './sql/sql.js';
import { retryError, TransactionSession } from './transaction-session.js';

const WHAT = 'PostgreSQL';

/** The `application_name` of the pool's connections, unless `pool` names another. */
export const POOL_APPLICATION_NAME = 'agent-platform';

/** The `application_name` of the connection that listens for changes. */
export const LISTENER_APPLICATION_NAME = 'agent-platform-listener';

/** Default of the pool's `connectionTimeoutMillis`: a 503 rather than an endless wait. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

export interface PgBackendOptions {
  connectionString: string;
  pool?: Omit<PoolConfig, 'connectionString'>;
  maxTransactionAttempts: number;
  onConnectionError?: (error: StorageUnavailableError) => void;
}

/** A client taken from the pool for a transaction. */
interface CheckedOut {
  client: PoolClient;
  /** Marks the connection as failed (its 'error' event does too): `release` then drops it. */
  fail(): void;
  /** Hands the client back to the pool, or drops it when its connection failed. */
  release(): void;
}

export function createPgBackend(options: PgBackendOptions): Backend {
  const redact = redactorFor(options.connectionString);
  const toError = (error: unknown): unknown => toStorageError(WHAT, error, redact);
  const pool = new pg.Pool({
    application_name: POOL_APPLICATION_NAME,
    connectionTimeoutMillis: DEFAULT_CONNECTION_TIMEOUT_MS,
    ...options.pool,
    connectionString: options.connectionString,
  });
  // Without a listener, an idle client's dropped connection would be an uncaught 'error' event.
  pool.on('error', (error) => options.onConnectionError?.(unavailable(WHAT, error, redact)));

  let closed = false;
  const detached = new Set<Promise<unknown>>();
  const assertOpen = (): void => {
    if (closed) throw new StorageUnavailableError('The PostgreSQL storage is closed');
  };

  /** A statement outside a transaction, run again after a deadlock or serialization failure. */
  async function autocommit(text: string, params?: readonly unknown[]): Promise<SqlResult<Record<string, unknown>>> {
    assertOpen();
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await pool.query(text, params as unknown[] | undefined);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      } catch (error) {
        if (!isRetryable(error)) throw toError(error);
        if (attempt >= options.maxTransactionAttempts) throw retryError(WHAT, error);
        await backoff(attempt);
      }
    }
  }

  const sql: Sql = {
    query: autocommit as Sql['query'],
    guardedQuery: autocommit as Sql['guardedQuery'],
    async exec(text) {
      await autocommit(text);
    },
  };

  const changes = createPgChangeFeed({
    sql,
    // The pool's settings that make a connection (ssl, timeouts, ...), outside the pool.
    newClient: () =>
      new pg.Client({
        connectionTimeoutMillis: DEFAULT_CONNECTION_TIMEOUT_MS,
        ...options.pool,
        application_name: LISTENER_APPLICATION_NAME,
        keepAlive: true,
        connectionString: options.connectionString,
      }),
    redact,
    assertOpen,
    ...(options.onConnectionError ? { onConnectionError: options.onConnectionError } : {}),
  });

  /**
   * A client for a transaction, watched for connection errors from the moment it is handed out.
   * pg-pool takes its own 'error' listener off a client as it hands it out, possibly in the middle
   * of reading that client's socket (a connection just opened, or one released and passed
   * straight to a waiting transaction): an error read next (the server ending the connection) is
   * emitted before any promise continuation runs, and with no listener it is an uncaught 'error'
   * event that ends the process. `connect`'s callback runs as the client is handed out.
   */
  function checkout(): Promise<CheckedOut> {
    assertOpen();
    return new Promise((resolve, reject) => {
      pool.connect((error, client, done) => {
        if (error || !client) {
          reject(unavailable(WHAT, error, redact));
          return;
        }
        let broken = false;
        const onError = (): void => {
          broken = true;
        };
        client.on('error', onError);
        resolve({
          client,
          fail: onError,
          release() {
            client.removeListener('error', onError);
            // A client whose connection failed is dropped, not handed to the next caller.
            done(broken || undefined);
          },
        });
      });
    });
  }

  /** One attempt of a transaction on a client of its own. */
  async function attempt<T>(fn: (sql: Sql) => Promise<T>, isolation: Isolation): Promise<{ value: T } | { retry: unknown }> {
    const { client, fail, release } = await checkout();
    const run = async (text: string, params?: readonly unknown[]): Promise<SqlResult<Record<string, unknown>>> => {
      const result = await client.query(text, params as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    };
    const session = new TransactionSession(
      run,
      async (text) => {
        await client.query(text);
      },
      (error) => (isRetryable(error) ? retryError(WHAT, error) : toError(error)),
    );
    const rollback = (): Promise<unknown> => client.query('ROLLBACK').catch(fail);
    try {
      try {
        await client.query(isolation === 'serializable' ? 'BEGIN ISOLATION LEVEL SERIALIZABLE' : 'BEGIN ISOLATION LEVEL READ COMMITTED');
      } catch (error) {
        throw toError(error);
      }
      let value: T;
      try {
        value = await fn(session.sql);
        await session.finish();
      } catch (error) {
        await session.close();
        await rollback();
        if (session.retry) return { retry: error };
        // fn's own error, or the port's error a repository threw, as it is.
        throw error;
      }
      try {
        await client.query('COMMIT');
      } catch (error) {
        if (isRetryable(error)) return { retry: error };
        throw toError(error);
      }
      return { value };
    } finally {
      release();
    }
  }

  return {
    name: 'postgres',
    sql,
    changes,

    async transaction(fn, isolation = 'serializable') {
      const attempts = isolation === 'serializable' ? options.maxTransactionAttempts : 1;
      for (let n = 1; ; n += 1) {
        const outcome = await attempt(fn, isolation);
        if ('value' in outcome) return outcome.value;
        if (n >= attempts) throw outcome.retry instanceof StorageUnavailableError ? outcome.retry : retryError(WHAT, outcome.retry);
        await backoff(n);
      }
    },

    detach(task) {
      if (closed) return;
      const running = task(sql).catch(() => undefined);
      detached.add(running);
      void running.finally(() => detached.delete(running));
    },

    async ping() {
      assertOpen();
      try {
        await pool.query('SELECT 1');
      } catch (error) {
        throw unavailable(WHAT, error, redact);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await changes.close();
      await Promise.allSettled([...detached]);
      await pool.end();
    },
  };
}
