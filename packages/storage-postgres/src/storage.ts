/**
 * The `StorageAdapter` over a backend: the repositories once on the backend's own `Sql`, and
 * afresh on each transaction's; the run queue over the runs table; the backend's change feed.
 * @module
 */
import type { StorageAdapter } from '@agent-platform/core';
import { applyMigrations, appliedVersion } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import type { CommonStorageOptions, GroupCommitLimits } from './options.js';
import { createRepositories, deliveryBatcher, PRUNE_EXPIRED_CLAIMS, type ClaimHooks, type DeliveryBatcher } from './repositories/index.js';
import { createRunQueue } from './run-queue.js';
import type { Backend } from './sql/sql.js';

/** Every this many claims, one prune of expired claims starts in the background ... */
const PRUNE_EVERY = 32;
/** ... and deletes at most this many: four per claim, so a backlog shrinks. */
const PRUNE_BATCH = 128;

/** Migrates (unless told not to) and hands out the adapter; closes the backend if that fails. */
export async function openStorage(backend: Backend, options: CommonStorageOptions): Promise<StorageAdapter> {
  let limits: BatchLimits | false;
  try {
    limits = options.groupCommit === false ? false : groupCommitLimits(options.groupCommit ?? {});
  } catch (error) {
    await backend.close().catch(() => undefined);
    throw error;
  }
  if (options.migrate !== false) {
    try {
      await applyMigrations(backend);
    } catch (error) {
      await backend.close().catch(() => undefined);
      throw error;
    }
  }
  return storageOver(backend, limits);
}

/** Default of {@link GroupCommitLimits.maxBatch}. */
export const DEFAULT_MAX_BATCH = 64;

type BatchLimits = Required<GroupCommitLimits>;

function groupCommitLimits(limits: GroupCommitLimits): BatchLimits {
  const maxBatch = limits.maxBatch ?? DEFAULT_MAX_BATCH;
  // One batch committing while the next gathers: measured best on PostgreSQL (bench/ingest-durable.ts),
  // and PGlite's one connection would only queue a second.
  const maxInFlight = limits.maxInFlight ?? 1;
  for (const [name, value] of [
    ['maxBatch', maxBatch],
    ['maxInFlight', maxInFlight],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`groupCommit.${name} must be a positive integer, got ${value}`);
  }
  return { maxBatch, maxInFlight };
}

/** `groupCommit`: the bounds of the group commit of deliveries, or `false` for none. */
export function storageOver(backend: Backend, groupCommit: BatchLimits | false): StorageAdapter {
  let claims = 0;
  const hooks: ClaimHooks = {
    claimed(now) {
      claims += 1;
      // Off the claimer's path and outside its transaction: pruning there would make concurrent
      // ingest transactions contend for the same expired rows.
      if (claims % PRUNE_EVERY === 0) backend.detach((sql) => sql.query(PRUNE_EXPIRED_CLAIMS, [now, PRUNE_BATCH]));
    },
  };
  const batcher: DeliveryBatcher | undefined = groupCommit === false ? undefined : deliveryBatcher(backend.sql, hooks, groupCommit);
  // An audit append reads the org's last entry and writes the next in one transaction: outside
  // one, its own, READ COMMITTED so that the read after the advisory lock sees the last commit.
  const repositories = createRepositories(backend.sql, hooks, batcher, (fn) => backend.transaction(fn, 'read-committed'));
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
    async migrationStatus() {
      // Without `migrate: false` every migration was applied at open; with it, a deploy step applies them.
      return { applied: await appliedVersion(backend.sql), latest: MIGRATIONS.length };
    },
    close() {
      return backend.close();
    },
  };
}
