/**
 * The change feed over PostgreSQL `LISTEN` / `NOTIFY`.
 *
 * - `publish` is `SELECT pg_notify(...)` through the pool; `runs.pending` is coalesced.
 * - The first `subscribe` opens one connection of the adapter's own, outside the pool, that runs
 *   `LISTEN` and hands each notification to the adapter's listeners (through core's local feed:
 *   asynchronously, one failing listener not stopping the others). `subscribe` resolves once it
 *   listens, so every change published after that reaches the listener; it rejects with a
 *   `StorageUnavailableError` when that first connection cannot be made.
 * - When the connection fails or ends later, it is opened again with backoff, `LISTEN` is run
 *   again, and listeners get a `reset`: what was published meanwhile was missed. Its errors are
 *   reported (without the password) to `onConnectionError`, never thrown at the process.
 * - `close()` stops the subscriptions and ends the connection, forcibly if it does not end soon.
 * @module
 */
import type pg from 'pg';
import { StorageUnavailableError } from '@agent-platform/core';
import { createLocalChangeFeed } from '@agent-platform/core/adapter-kit';
import { backoffDelay } from './backoff.js';
import { CHANGE_CHANNEL, coalescePending, decodeChange, encodeChange, Subscriptions, type OwnedChangeFeed } from './change-feed.js';
import { unavailable, type Redact } from './sql/errors.js';
import type { Sql } from './sql/sql.js';

const WHAT = 'PostgreSQL';

/** The longest pause between attempts to reconnect the listener: a server may be down a while. */
const RECONNECT_CAP_MS = 5_000;

/** How long `close()` lets the listener's connection end politely before cutting it. */
const END_TIMEOUT_MS = 2_000;

export interface PgChangeFeedOptions {
  /** The pool's statements, for `pg_notify`. */
  sql: Sql;
  /** A client for the listener, not connected yet (and not from the pool). */
  newClient(): pg.Client;
  redact: Redact;
  /** Throws a `StorageUnavailableError` once the adapter is closed. */
  assertOpen(): void;
  /** Told when the listener's connection fails, or cannot be opened again. */
  onConnectionError?: (error: StorageUnavailableError) => void;
}

export function createPgChangeFeed(options: PgChangeFeedOptions): OwnedChangeFeed {
  const local = createLocalChangeFeed();
  const subscriptions = new Subscriptions();
  const report = (error: unknown): void => options.onConnectionError?.(unavailable(WHAT, error, options.redact));

  /** The connection that listens, while it does. */
  let client: pg.Client | undefined;
  /** Clients being connected, so `close()` can end them too. */
  const connecting = new Set<pg.Client>();
  /** The first connection in progress: subscribers wait for it. */
  let starting: Promise<void> | undefined;
  /** Whether a connection was made once: a loss is then reconnected by itself. */
  let started = false;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  /** A new connection that listens; its failures and notifications are wired up first. */
  async function listen(): Promise<pg.Client> {
    const next = options.newClient();
    connecting.add(next);
    // Attached before connecting: an 'error' event without a listener would crash the process.
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('the listener connection ended')));
    next.on('notification', (message) => {
      if (next !== client || message.channel !== CHANGE_CHANNEL) return;
      const change = decodeChange(message.payload);
      if (change) local.emit(change);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGE_CHANNEL}`);
      if (closed) throw new StorageUnavailableError('The PostgreSQL storage is closed');
      // From here on a failure of the connection is a loss to recover from.
      client = next;
      return next;
    } catch (error) {
      await end(next);
      throw unavailable(WHAT, error, options.redact);
    } finally {
      connecting.delete(next);
    }
  }

  /** The listening connection failed or ended: open another, unless it was ours to end. */
  function lost(which: pg.Client, error: unknown): void {
    if (which !== client) return;
    client = undefined;
    void end(which);
    if (closed) return;
    report(error);
    reconnect(1);
  }

  function reconnect(attempt: number): void {
    retry = setTimeout(
      () => {
        retry = undefined;
        if (closed) return;
        listen().then(
          () => {
            // Whatever was published while no connection listened is lost.
            local.emit({ type: 'reset' });
          },
          (error: unknown) => {
            if (closed) return;
            report(error);
            reconnect(attempt + 1);
          },
        );
      },
      backoffDelay(attempt, RECONNECT_CAP_MS),
    );
    // A listener retrying alone keeps no process alive.
    retry.unref();
  }

  /** Resolves once a connection listens (or, after one was lost, while it is being reopened). */
  function listening(): Promise<void> {
    if (started) return Promise.resolve();
    starting ??= listen().then(
      () => {
        started = true;
        starting = undefined;
      },
      (error: unknown) => {
        starting = undefined;
        throw error;
      },
    );
    return starting;
  }

  const send = coalescePending(async (change) => {
    await options.sql.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, encodeChange(change)]);
  });

  return {
    async publish(change) {
      options.assertOpen();
      await send(change);
    },

    async subscribe(listener) {
      options.assertOpen();
      await listening();
      options.assertOpen();
      return subscriptions.add(await local.subscribe(listener));
    },

    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(retry);
      await subscriptions.stopAll();
      const open = [client, ...connecting].filter((one): one is pg.Client => one !== undefined);
      client = undefined;
      await Promise.all(open.map(end));
    },
  };
}

/** Ends a client, cutting its socket if it does not end within {@link END_TIMEOUT_MS}. */
async function end(client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      resolve();
    }, END_TIMEOUT_MS);
  });
  try {
    await Promise.race([client.end().catch(() => undefined), cut]);
  } finally {
    clearTimeout(timer);
  }
}
