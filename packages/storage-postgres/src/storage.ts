/**
 * The `StorageAdapter` over a backend: the repositories once on the backend's own `Sql`, and
 * afresh on each transaction's; the run queue over the runs table; the backend's change feed.
 * @module
 */
import type { StorageAdapter } from '@agent-platform/core';
import { applyMigrations } from './migrate.js';
import { createRepositories, PRUNE_EXPIRED_CLAIMS, type ClaimHooks } from './repositories/index.js';
import { createRunQueue } from './run-queue.js';
import type { Backend } from './sql/sql.js';

/** Every this many claims, one prune of expired claims starts in the background ... */
const PRUNE_EVERY = 32;
/** ... and deletes at most this many: four per claim, so a backlog shrinks. */
const PRUNE_BATCH = 128;

/** Migrates (unless told not to) and hands out the adapter; closes the backend if that fails. */
export async function openStorage(backend: Backend, options: { migrate?: boolean }): Promise<StorageAdapter> {
  if (options.migrate !== false) {
    try {
      await applyMigrations(backend);
    } catch (error) {
      await backend.close().catch(() => undefined);
      throw error;
    }
  }
  return storageOver(backend);
}

export function storageOver(backend: Backend): StorageAdapter {
  let claims = 0;
  const hooks: ClaimHooks = {
    claimed(now) {
      claims += 1;
      // Off the claimer's path and outside its transaction: pruning there would make concurrent
      // ingest transactions contend for the same expired rows.
      if (claims % PRUNE_EVERY === 0) backend.detach((sql) => sql.query(PRUNE_EXPIRED_CLAIMS, [now, PRUNE_BATCH]));
    },
  };
  const repositories = createRepositories(backend.sql, hooks);
  return {
    name: backend.name,
    ...repositories,
    runQueue: createRunQueue(backend, repositories.runs),
    changes: backend.changes,
    transaction(fn) {
      return backend.transaction((sql) => fn(createRepositories(sql, hooks)));
    },
    ping() {
      return backend.ping();
    },
    close() {
      return backend.close();
    },
  };
}
