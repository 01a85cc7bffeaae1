/**
 * API keys: unique by id and by hash, listed per user oldest first.
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import type { ApiKeyRecord, ApiKeysRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { assertNew, byCreation, copy } from './rows.js';

/** The insert rule, run against live state by whoever holds the lock (or by seeding). */
export function insertApiKey(db: Database, row: ApiKeyRecord): void {
  assertNew(db.apiKeys, row, 'An API key');
  if (db.apiKeys.live.find(db.apiKeysByHash, row.key_hash) !== undefined) {
    throw new StorageConflictError('An API key with this hash already exists');
  }
  db.apiKeys.put(row);
}

export function apiKeysRepository(db: Database, access: Access): ApiKeysRepository {
  return {
    async insert(record) {
      const row = cloneJson(record);
      await access.write(() => insertApiKey(db, row));
    },
    async get(id) {
      return copy(readView(access, db.apiKeys).get(id));
    },
    async getByHash(keyHash) {
      return copy(readView(access, db.apiKeys).find(db.apiKeysByHash, keyHash));
    },
    async listByUser(userId) {
      return readView(access, db.apiKeys).group(db.apiKeysByUser, userId).sort(byCreation).map(cloneJson);
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
  };
}
