/**
 * What sandboxes, conversations and start tasks have in common: records a user created, looked
 * up by id and listed per user newest first in cursor pages. Sandboxes and start tasks are also
 * replaced whole ({@link replaceWhole}); conversations change only by a guarded patch.
 * @module
 */
import type { CursorOptions, CursorPage } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import { cursorPage } from '../database/pages.js';
import type { OrderedIndex, Table } from '../table/index.js';
import { copy, insertNew, replace } from './rows.js';

interface UserOwnedRecord {
  id: string;
  created_by_user_id: string;
  created_at: string;
}

export interface UserOwnedRepository<V> {
  insert(record: V): Promise<void>;
  get(id: string): Promise<V | null>;
  listByUser(userId: string, options: CursorOptions): Promise<CursorPage<V>>;
}

/**
 * @param byUser - The table's newest-first index by `created_by_user_id`.
 * @param what - Names the record in the conflict message, e.g. "A sandbox".
 */
export function userOwnedRepository<V extends UserOwnedRecord>(table: Table<V>, byUser: OrderedIndex<V>, access: Access, what: string): UserOwnedRepository<V> {
  return {
    async insert(record) {
      const row = cloneJson(record);
      await access.write(() => insertNew(table, row, what));
    },
    async get(id) {
      return copy(readView(access, table).get(id));
    },
    async listByUser(userId, options) {
      return cursorPage(readView(access, table).ordered(byUser, userId), options);
    },
  };
}

/** `update` of records replaced whole: false when none is stored under the id. */
export function replaceWhole<V>(table: Table<V>, access: Access): { update(record: V): Promise<boolean> } {
  return {
    async update(record) {
      const row = cloneJson(record);
      return access.write(() => replace(table, row));
    },
  };
}
