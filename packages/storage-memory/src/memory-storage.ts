/**
 * An in-memory {@link StorageAdapter}, for tests, examples and single-process deployments that
 * can lose their data on restart.
 *
 * - Records are deep-copied on the way in and out, so callers never share objects with the store.
 * - Writes and transactions take one async mutex, so transactions run one after another and a
 *   write from outside never lands in the middle of one. Reads outside a transaction take no
 *   lock: they read the last committed state, which the undo log keeps at hand.
 * - A transaction writes in place and logs the pre-image of each row it touches; rollback puts
 *   those back. Its cost grows with the rows it touches, not with the size of the store.
 * - API keys by hash and webhooks by (org, source) are indexed, so those lookups are O(1).
 * @module
 */
import { StorageConflictError, StorageUnavailableError } from '@agent-platform/core';
import type {
  ApiKeyRecord,
  ProviderTokensRecord,
  SettingsRecord,
  StorageAdapter,
  StorageRepositories,
  WebhookRecord,
} from '@agent-platform/core';
import { cloneJson } from './clone-json.js';
import { Mutex } from './mutex.js';
import { GroupIndex, Table, UniqueIndex } from './table.js';

export const DRIVER_NAME = 'memory';

/** Records to start with, written as if inserted one by one (conflicts throw). */
export interface MemoryStorageSeed {
  settings?: readonly SettingsRecord[];
  providerTokens?: readonly ProviderTokensRecord[];
  apiKeys?: readonly ApiKeyRecord[];
  webhooks?: readonly WebhookRecord[];
}

export interface MemoryStorageOptions {
  /** Records the store starts with, e.g. a fixed API key for a demo server. */
  seed?: MemoryStorageSeed;
}

type Database = ReturnType<typeof createDatabase>;

/** What distinguishes the repositories of a transaction from the adapter's own. */
interface Access {
  /** Transactions read their own writes; everyone else reads committed state. */
  readonly view: 'live' | 'committed';
  /** Throws when the repositories may no longer be used. */
  check(): void;
  /** Runs a write against the live tables. */
  write<T>(op: () => T): Promise<T>;
}

/**
 * Creates an empty (or seeded) in-memory store.
 *
 * Inside `transaction(fn)`, use only the `tx` repositories for writes: a write through the
 * adapter itself waits for the transaction to finish, and the transaction waits for it.
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): StorageAdapter {
  const db = createDatabase();
  const tables = [db.settings, db.providerTokens, db.apiKeys, db.webhooks] as const;
  const mutex = new Mutex();
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new StorageUnavailableError('The memory storage is closed');
  };

  if (options.seed) seed(db, options.seed);

  const repositories = createRepositories(db, {
    view: 'committed',
    check: assertOpen,
    write: (op) =>
      mutex.run(() => {
        assertOpen();
        return op();
      }),
  });

  return {
    name: DRIVER_NAME,
    ...repositories,

    async transaction(fn) {
      assertOpen();
      return mutex.run(async () => {
        assertOpen();
        let open = true;
        const check = (): void => {
          if (!open) throw new Error('The transaction has finished; its repositories can no longer be used');
        };
        const tx = createRepositories(db, {
          view: 'live',
          check,
          write: async (op) => {
            check();
            return op();
          },
        });
        for (const table of tables) table.begin();
        try {
          const result = await fn(tx);
          for (const table of tables) table.commit();
          return result;
        } catch (error) {
          for (const table of tables) table.rollback();
          throw error;
        } finally {
          open = false;
        }
      });
    },

    async ping() {
      assertOpen();
    },

    async close() {
      // Let queued writes and transactions finish first, as a database pool would on shutdown.
      await mutex.run(() => {
        closed = true;
      });
    },
  };
}

function createDatabase() {
  const apiKeysByHash = new UniqueIndex<ApiKeyRecord>((row) => row.key_hash);
  const apiKeysByUser = new GroupIndex<ApiKeyRecord>((row) => row.user_id);
  const webhooksBySource = new UniqueIndex<WebhookRecord>((row) => sourceKey(row.org_id, row.source));
  const webhooksByOrg = new GroupIndex<WebhookRecord>((row) => row.org_id);
  return {
    settings: new Table<SettingsRecord>((row) => row.user_id),
    providerTokens: new Table<ProviderTokensRecord>((row) => row.user_id),
    apiKeys: new Table<ApiKeyRecord>((row) => row.id, [apiKeysByHash, apiKeysByUser]),
    webhooks: new Table<WebhookRecord>((row) => row.id, [webhooksBySource, webhooksByOrg]),
    apiKeysByHash,
    apiKeysByUser,
    webhooksBySource,
    webhooksByOrg,
  };
}

/** Length-prefixed so no pair of (org, source) strings can produce another pair's key. */
function sourceKey(orgId: string, source: string): string {
  return `${orgId.length}:${orgId}:${source}`;
}

// The write rules, run against live state by whoever holds the lock (or by seeding).

function insertApiKey(db: Database, row: ApiKeyRecord): void {
  if (db.apiKeys.live.get(row.id) !== undefined) {
    throw new StorageConflictError(`An API key with id ${row.id} already exists`);
  }
  if (db.apiKeys.live.find(db.apiKeysByHash, row.key_hash) !== undefined) {
    throw new StorageConflictError('An API key with this hash already exists');
  }
  db.apiKeys.put(row);
}

function insertWebhook(db: Database, row: WebhookRecord): void {
  if (db.webhooks.live.get(row.id) !== undefined) {
    throw new StorageConflictError(`A webhook with id ${row.id} already exists`);
  }
  assertSourceFree(db, row);
  db.webhooks.put(row);
}

function updateWebhook(db: Database, row: WebhookRecord): boolean {
  const current = db.webhooks.live.get(row.id);
  if (current === undefined || current.org_id !== row.org_id) return false;
  if (current.source !== row.source) assertSourceFree(db, row);
  db.webhooks.put(row);
  return true;
}

function assertSourceFree(db: Database, row: WebhookRecord): void {
  const holder = db.webhooks.live.find(db.webhooksBySource, sourceKey(row.org_id, row.source));
  if (holder !== undefined && holder.id !== row.id) {
    throw new StorageConflictError(`The org already has a webhook for source "${row.source}"`);
  }
}

function seed(db: Database, records: MemoryStorageSeed): void {
  for (const record of records.settings ?? []) db.settings.put(cloneJson(record));
  for (const record of records.providerTokens ?? []) db.providerTokens.put(cloneJson(record));
  for (const record of records.apiKeys ?? []) insertApiKey(db, cloneJson(record));
  for (const record of records.webhooks ?? []) insertWebhook(db, cloneJson(record));
}

function copy<V>(row: V | undefined): V | null {
  return row === undefined ? null : cloneJson(row);
}

/** Oldest first; ids break ties in code-unit order, like a `COLLATE "C"` database column. */
function byCreation(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  const age = Date.parse(a.created_at) - Date.parse(b.created_at);
  if (age !== 0 && !Number.isNaN(age)) return age;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function createRepositories(db: Database, access: Access): StorageRepositories {
  const view = <V>(table: Table<V>) => {
    access.check();
    return table[access.view];
  };

  return {
    settings: {
      async get(userId) {
        return copy(view(db.settings).get(userId));
      },
      async put(record) {
        // Copied before queueing, so changes the caller makes while the write waits do not land.
        const row = cloneJson(record);
        await access.write(() => db.settings.put(row));
      },
    },

    providerTokens: {
      async get(userId) {
        return copy(view(db.providerTokens).get(userId));
      },
      async put(record) {
        const row = cloneJson(record);
        await access.write(() => db.providerTokens.put(row));
      },
      async delete(userId) {
        await access.write(() => db.providerTokens.delete(userId));
      },
    },

    apiKeys: {
      async insert(record) {
        const row = cloneJson(record);
        await access.write(() => insertApiKey(db, row));
      },
      async get(id) {
        return copy(view(db.apiKeys).get(id));
      },
      async getByHash(keyHash) {
        return copy(view(db.apiKeys).find(db.apiKeysByHash, keyHash));
      },
      async listByUser(userId) {
        return view(db.apiKeys).group(db.apiKeysByUser, userId).sort(byCreation).map(cloneJson);
      },
      async touch(id, at) {
        await access.write(() => {
          const current = db.apiKeys.live.get(id);
          // A new object, never an in-place edit: the undo log may hold `current` as a pre-image.
          if (current !== undefined) db.apiKeys.put({ ...current, last_used_at: at });
        });
      },
      async delete(id) {
        return access.write(() => db.apiKeys.delete(id));
      },
    },

    webhooks: {
      async insert(record) {
        const row = cloneJson(record);
        await access.write(() => insertWebhook(db, row));
      },
      async get(orgId, id) {
        const row = view(db.webhooks).get(id);
        return row?.org_id === orgId ? copy(row) : null;
      },
      async getBySource(orgId, source) {
        return copy(view(db.webhooks).find(db.webhooksBySource, sourceKey(orgId, source)));
      },
      async list(orgId, { limit, offset }) {
        const rows = view(db.webhooks).group(db.webhooksByOrg, orgId).sort(byCreation);
        return { items: rows.slice(offset, offset + limit).map(cloneJson), total: rows.length };
      },
      async update(record) {
        const row = cloneJson(record);
        return access.write(() => updateWebhook(db, row));
      },
      async delete(orgId, id) {
        return access.write(() => {
          const current = db.webhooks.live.get(id);
          return current !== undefined && current.org_id === orgId && db.webhooks.delete(id);
        });
      },
    },
  };
}
