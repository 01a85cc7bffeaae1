/**
 * Threads: one row per (org, automation, key), replaced whole by `put`. The org and automation
 * are part of the key, so another org's or automation's thread of the same key is another row.
 * @module
 */
import type { ThreadsRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { threadKey } from '../database/keys.js';
import { copy } from './rows.js';

export function threadsRepository(db: Database, access: Access): ThreadsRepository {
  return {
    async get(orgId, automationId, key) {
      return copy(readView(access, db.threads).get(threadKey(orgId, automationId, key)));
    },
    async put(record) {
      // Copied before queueing, so changes the caller makes while the write waits do not land.
      const row = cloneJson(record);
      await access.write(() => db.threads.put(row));
    },
  };
}
