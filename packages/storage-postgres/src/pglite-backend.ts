/**
 * The PGlite backend: Postgres compiled to WASM, in-process, one connection.
 *
 * One connection means one transaction at a time. PGlite's own `transaction()` holds a lock for
 * its whole length, and plain queries wait for it; so transactions run one after another and a
 * statement from outside never lands inside one — concurrent callers just queue.
 *
 * The one case queueing cannot serve: `fn` itself calling the adapter's own (non-`tx`)
 * repositories, e.g. to read what is committed while its transaction is open. With a second
 * connection (node-postgres) that simply works; here it would wait for the transaction, which
 * waits for `fn`. So a statement from inside `fn`'s async context (tracked with
 * AsyncLocalStorage) is run *beside* the transaction instead: the transaction is rolled back, the
 * statement runs on its own (committed state, committed if it writes), and the transaction's
 * statements are replayed from a log. Replay is deterministic — nothing else can run on the
 * connection meanwhile — unless that outside statement changed something the transaction had read
 * or written; then the replay's results differ from the originals and the transaction is run
 * again from the start, as a serialization failure would be with PostgreSQL.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { StorageUnavailableError } from '@agent-platform/core';
import { backoff } from './backoff.js';
import { createPGliteChangeFeed } from './pglite-change-feed.js';
import { redactorFor, toStorageError, TransactionRetryError, unavailable } from './sql/errors.js';
import type { Backend, Sql, SqlResult } from './sql/sql.js';
import { retryError, TransactionSession } from './transaction-session.js';

const WHAT = 'PGlite';

const redact = redactorFor(undefined);
const toError = (error: unknown): unknown => toStorageError(WHAT, error, redact);

/** The transaction whose `fn` the current async context runs in, if any. */
const activeTransaction = new AsyncLocalStorage<PGliteTransaction>();

export interface PGliteBackendOptions {
  /** Whether `close()` closes the PGlite instance (not when the caller passed one in). */
  owned: boolean;
  maxTransactionAttempts: number;
}

export function createPGliteBackend(db: PGlite, options: PGliteBackendOptions): Backend {
  let closed = false;
  const detached = new Set<Promise<unknown>>();
  const assertOpen = (): void => {
    if (closed || db.closed) throw new StorageUnavailableError('The PGlite storage is closed');
  };

  /** The open transaction of `db` that the caller runs inside, if any. */
  const enclosing = (): PGliteTransaction | undefined => {
    const active = activeTransaction.getStore();
    return active !== undefined && active.db === db && active.isOpen() ? active : undefined;
  };

  async function query(text: string, params?: readonly unknown[]): Promise<SqlResult<Record<string, unknown>>> {
    assertOpen();
    const outer = enclosing();
    try {
      if (outer) return await outer.beside(() => outer.connection.query<Record<string, unknown>>(text, params as unknown[] | undefined).then(toSqlResult));
      return toSqlResult(await db.query<Record<string, unknown>>(text, params as unknown[] | undefined));
    } catch (error) {
      throw toError(error);
    }
  }

  const sql: Sql = {
    query: query as Sql['query'],
    guardedQuery: query as Sql['guardedQuery'],
    async exec(text) {
      assertOpen();
      const outer = enclosing();
      try {
        if (outer) await outer.beside(() => outer.connection.exec(text));
        else await db.exec(text);
      } catch (error) {
        throw toError(error);
      }
    },
  };

  const changes = createPGliteChangeFeed(db, assertOpen);

  return {
    name: 'pglite',
    sql,
    changes,

    async transaction(fn) {
      assertOpen();
      if (enclosing()) {
        throw new Error('transaction() was called inside a transaction of the same PGlite database, which runs one at a time; use the tx repositories');
      }
      for (let attempt = 1; ; attempt += 1) {
        let current: PGliteTransaction | undefined;
        try {
          return await db.transaction(async (connection) => {
            current = new PGliteTransaction(db, connection);
            const transaction = current;
            let value: Awaited<ReturnType<typeof fn>>;
            try {
              value = await activeTransaction.run(transaction, () => fn(transaction.session.sql));
            } finally {
              // Nothing may still run on the connection when PGlite commits or rolls back.
              await transaction.session.close();
            }
            await transaction.session.finish();
            return value;
          });
        } catch (error) {
          if (!current?.session.retry) throw current ? error : toError(error);
          if (attempt >= options.maxTransactionAttempts) {
            throw error instanceof StorageUnavailableError ? error : retryError(WHAT, error);
          }
          await backoff(attempt);
        }
      }
    },

    detach(task) {
      if (closed) return;
      // Outside any transaction's context: it waits for the open one, like any other caller.
      const running = activeTransaction.exit(() => task(sql)).catch(() => undefined);
      detached.add(running);
      void running.finally(() => detached.delete(running));
    },

    async ping() {
      try {
        assertOpen();
        await query('SELECT 1');
      } catch (error) {
        throw unavailable(WHAT, error, redact);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await changes.close();
      await Promise.allSettled([...detached]);
      if (options.owned && !db.closed) {
        // Queues behind the transaction in progress, if any, so it ends before the database does.
        await db.query('SELECT 1').catch(() => undefined);
        await db.close();
      }
    },
  };
}

function toSqlResult(result: { rows: Record<string, unknown>[]; affectedRows?: number }): SqlResult<Record<string, unknown>> {
  return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
}

/** One statement of the transaction as first run, to replay and compare. */
interface LoggedStatement {
  /** `script`: several statements without parameters, run with `exec`. */
  kind: 'statement' | 'script';
  text: string;
  params: readonly unknown[] | undefined;
  /** The rows and count it returned, or the SQLSTATE it failed with. */
  outcome: string;
}

/** An open PGlite transaction: its session, and the log that lets a statement run beside it. */
class PGliteTransaction {
  readonly session: TransactionSession;
  private readonly log: LoggedStatement[] = [];

  constructor(
    readonly db: PGlite,
    readonly connection: Transaction,
  ) {
    this.session = new TransactionSession(
      (text, params) => this.logged({ kind: 'statement', text, params }),
      async (text) => {
        await this.logged({ kind: 'script', text, params: undefined });
      },
      (error) => (error instanceof TransactionRetryError ? error : toError(error)),
    );
  }

  /** Whether statements from `fn`'s context should still run beside it (rather than queue after it). */
  isOpen(): boolean {
    return !this.connection.closed && this.session.isOpen();
  }

  /**
   * Runs `op` (a statement from outside the transaction) on committed state: rolls the
   * transaction back, runs `op` on its own, begins again and replays the log.
   */
  beside<T>(op: () => Promise<T>): Promise<T> {
    return this.session.exclusive(async () => {
      await this.connection.exec('ROLLBACK');
      let outcome: { value: T } | { error: unknown };
      try {
        outcome = { value: await op() };
      } catch (error) {
        outcome = { error };
      }
      await this.connection.exec('BEGIN');
      await this.replay();
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    }, true);
  }

  /** Runs a statement of the transaction and logs what it did. */
  private async logged(statement: Omit<LoggedStatement, 'outcome'>): Promise<SqlResult<Record<string, unknown>>> {
    try {
      const result = await this.execute(statement);
      this.log.push({ ...statement, outcome: digest(result) });
      return result;
    } catch (error) {
      this.log.push({ ...statement, outcome: failureDigest(error) });
      throw error;
    }
  }

  private async execute(statement: Omit<LoggedStatement, 'outcome'>): Promise<SqlResult<Record<string, unknown>>> {
    if (statement.kind === 'script') {
      await this.connection.exec(statement.text);
      return { rows: [], rowCount: 0 };
    }
    return toSqlResult(await this.connection.query<Record<string, unknown>>(statement.text, statement.params as unknown[] | undefined));
  }

  private async replay(): Promise<void> {
    for (const statement of this.log) {
      let outcome: string;
      try {
        outcome = digest(await this.execute(statement));
      } catch (error) {
        outcome = failureDigest(error);
      }
      if (outcome !== statement.outcome) {
        const error = new TransactionRetryError('PGlite: a statement run beside the transaction changed what the transaction had read or written');
        this.session.fail(error, true);
        return;
      }
    }
  }
}

function digest(result: SqlResult<Record<string, unknown>>): string {
  return `${result.rowCount}:${JSON.stringify(result.rows, (_, value: unknown) => (typeof value === 'bigint' ? String(value) : value))}`;
}

function failureDigest(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return `error:${typeof code === 'string' ? code : String(error)}`;
}
