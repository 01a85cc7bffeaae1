/**
 * The statements of one open transaction, whichever driver runs them.
 *
 * - They run one at a time, in call order, even when `fn` starts several at once: a guarded
 *   statement's SAVEPOINT / statement / RELEASE must not have another statement in between.
 * - A guarded statement that fails is rolled back to its savepoint, so the transaction goes on.
 * - Any other failure aborts the transaction in the database. It is remembered, so that `fn`
 *   catching it cannot lead to a COMMIT (which PostgreSQL would turn into a silent ROLLBACK), and a
 *   serialization failure or deadlock marks the attempt as one to run again.
 * - Once the transaction has finished, its repositories refuse to run anything.
 * @module
 */
import { isRetryable, isUnavailable, TransactionRetryError } from './sql/errors.js';
import type { Sql, SqlResult } from './sql/sql.js';

/** Runs one statement on the transaction's connection. */
export type RunStatement = (text: string, params?: readonly unknown[]) => Promise<SqlResult<Record<string, unknown>>>;

export class TransactionSession {
  private tail: Promise<unknown> = Promise.resolve();
  private open = true;
  private closing = false;
  private failure: unknown;
  private savepoints = 0;
  /** Set when the attempt hit a serialization failure or a deadlock: run the transaction again. */
  retry = false;

  readonly sql: Sql;

  /**
   * @param run - Runs a statement on the transaction's connection.
   * @param runScript - Runs a script of several statements.
   * @param toError - What a failed statement throws to `fn` (the port's errors).
   */
  constructor(
    private readonly run: RunStatement,
    private readonly runScript: (text: string) => Promise<void>,
    private readonly toError: (error: unknown) => unknown,
  ) {
    this.sql = {
      query: <T>(text: string, params?: readonly unknown[]) => this.exclusive(() => this.plain(text, params)) as Promise<SqlResult<T>>,
      guardedQuery: <T>(text: string, params?: readonly unknown[]) => this.exclusive(() => this.guarded(text, params)) as Promise<SqlResult<T>>,
      exec: (text: string) => this.exclusive(() => this.attempt(() => this.runScript(text))),
    };
  }

  /**
   * Runs `task` when every statement started before it has finished, and before any started after.
   * `anyway`: run it even when the transaction is aborted (it is not part of it).
   */
  exclusive<T>(task: () => Promise<T>, anyway = false): Promise<T> {
    const result = this.tail.then(() => {
      this.checkUsable(anyway);
      return task();
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** False once `close()` has begun: the transaction takes no more statements. */
  isOpen(): boolean {
    return this.open && !this.closing;
  }

  /** Marks the attempt as failed (and to be retried when `retry`), as if a statement had failed. */
  fail(error: unknown, retry: boolean): void {
    this.failure ??= error;
    if (retry) this.retry = true;
  }

  /**
   * Waits for the statements in flight, then closes the session: later use of its repositories
   * throws. Throws what aborted the transaction, if anything did, so it is not committed.
   */
  async finish(): Promise<void> {
    await this.close();
    if (this.failure !== undefined) throw this.toError(this.failure);
  }

  /** Waits for the statements in flight and closes the session, without judging the outcome. */
  async close(): Promise<void> {
    this.closing = true;
    this.tail = this.tail.then(() => {
      this.open = false;
    });
    await this.tail;
  }

  private checkUsable(anyway: boolean): void {
    if (!this.open) throw new Error('The transaction has finished; its repositories can no longer be used');
    // The database would answer "current transaction is aborted"; the cause says more.
    if (this.failure !== undefined && !anyway) throw this.toError(this.failure);
  }

  private plain(text: string, params?: readonly unknown[]): Promise<SqlResult<Record<string, unknown>>> {
    return this.attempt(() => this.run(text, params));
  }

  private async guarded(text: string, params?: readonly unknown[]): Promise<SqlResult<Record<string, unknown>>> {
    this.savepoints += 1;
    const savepoint = `agent_platform_${this.savepoints}`;
    await this.attempt(() => this.run(`SAVEPOINT ${savepoint}`));
    try {
      const result = await this.run(text, params);
      await this.attempt(() => this.run(`RELEASE SAVEPOINT ${savepoint}`));
      return result;
    } catch (error) {
      // Contention and lost connections doom the whole attempt; anything else stays local.
      if (this.failure !== undefined || isRetryable(error) || isUnavailable(error)) {
        this.remember(error);
        throw this.toError(error);
      }
      await this.attempt(() => this.run(`ROLLBACK TO SAVEPOINT ${savepoint}`));
      await this.attempt(() => this.run(`RELEASE SAVEPOINT ${savepoint}`));
      throw this.toError(error);
    }
  }

  private async attempt<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (error) {
      this.remember(error);
      throw this.toError(error);
    }
  }

  private remember(error: unknown): void {
    this.fail(error, isRetryable(error));
  }
}

/** The error a transaction's repositories throw for a serialization failure or deadlock. */
export function retryError(what: string, error: unknown): TransactionRetryError {
  return new TransactionRetryError(`${what}: the transaction kept conflicting with concurrent ones; try again`, { cause: error });
}
