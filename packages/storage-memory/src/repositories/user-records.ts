/**
 * Settings and provider tokens: one record per user, replaced whole by `put`.
 * @module
 */
import type { ProviderTokensRepository, SettingsRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import type { Table } from '../table/index.js';
import { copy } from './rows.js';

/** `get` and `put` of a table keyed by user id. */
function perUserRepository<V>(table: Table<V>, access: Access): { get(userId: string): Promise<V | null>; put(record: V): Promise<void> } {
  return {
    async get(userId) {
      return copy(readView(access, table).get(userId));
    },
    async put(record) {
      // Copied before queueing, so changes the caller makes while the write waits do not land.
      const row = cloneJson(record);
      await access.write(() => table.put(row));
    },
  };
}

export function settingsRepository(db: Database, access: Access): SettingsRepository {
  return perUserRepository(db.settings, access);
}

export function providerTokensRepository(db: Database, access: Access): ProviderTokensRepository {
  return {
    ...perUserRepository(db.providerTokens, access),
    async delete(userId) {
      await access.write(() => db.providerTokens.delete(userId));
    },
  };
}
