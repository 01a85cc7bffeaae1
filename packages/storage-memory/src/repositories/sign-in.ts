/**
 * Console sign-in: memberships keyed by (org, user) and listed by org, oldest first; sessions by
 * the hash of their id. A first sign-in's insert-or-get runs under the write lock, so concurrent
 * ones make one membership.
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import type { ConsoleSessionsRepository, MembershipsRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import { ALL, type Database } from '../database/database.js';
import { pairKey } from '../database/keys.js';
import { instantOf } from '../table/index.js';
import { copy } from './rows.js';

export function membershipsRepository(db: Database, access: Access): MembershipsRepository {
  return {
    async get(orgId, userId) {
      return copy(readView(access, db.memberships).get(pairKey(orgId, userId)));
    },
    async list(orgId) {
      return readView(access, db.memberships).ordered(db.membershipsByOrg, orgId).all().map(cloneJson);
    },
    async insertOrGet(record) {
      const row = cloneJson(record);
      const stored = await access.write(() => {
        const current = db.memberships.live.get(pairKey(row.org_id, row.user_id));
        if (current !== undefined) return current;
        db.memberships.put(row);
        return row;
      });
      return cloneJson(stored);
    },
    async setRole(orgId, userId, role) {
      const changed = await access.write(() => {
        const current = db.memberships.live.get(pairKey(orgId, userId));
        if (current === undefined) return undefined;
        // A new object: the undo log may hold `current` as a pre-image.
        const next = { ...current, role };
        db.memberships.put(next);
        return next;
      });
      return copy(changed);
    },
  };
}

export function consoleSessionsRepository(db: Database, access: Access): ConsoleSessionsRepository {
  return {
    async insert(record) {
      const row = cloneJson(record);
      await access.write(() => {
        if (db.consoleSessions.live.get(row.id_hash) !== undefined) throw new StorageConflictError('A console session with this hash already exists');
        db.consoleSessions.put(row);
      });
    },
    async get(idHash) {
      return copy(readView(access, db.consoleSessions).get(idHash));
    },
    async delete(idHash) {
      return access.write(() => db.consoleSessions.delete(idHash));
    },
    async deleteExpired(now, limit) {
      const cutoff = instantOf(now);
      return access.write(() => {
        let deleted = 0;
        while (deleted < limit) {
          const primaryKey = db.consoleSessionsByExpiry.oldest(ALL);
          const row = primaryKey === undefined ? undefined : db.consoleSessions.live.get(primaryKey);
          if (primaryKey === undefined || row === undefined || instantOf(row.expires_at) > cutoff) break;
          db.consoleSessions.delete(primaryKey);
          deleted += 1;
        }
        return deleted;
      });
    },
  };
}
