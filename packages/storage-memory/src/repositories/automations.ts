/**
 * Automations: listed per org newest first, and the enabled ones looked up by (org, trigger
 * source) for ingest, in O(the automations returned).
 * @module
 */
import type { AutomationRecord, AutomationsRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { pairKey } from '../database/keys.js';
import { offsetPage } from '../database/pages.js';
import { copyOwned, deleteOwned, insertNew } from './rows.js';

/** The insert rule, run against live state by whoever holds the lock (or by seeding). */
export function insertAutomation(db: Database, row: AutomationRecord): void {
  insertNew(db.automations, row, 'An automation');
}

export function automationsRepository(db: Database, access: Access): AutomationsRepository {
  return {
    async insert(record) {
      const row = cloneJson(record);
      await access.write(() => insertAutomation(db, row));
    },
    async get(orgId, id) {
      return copyOwned(readView(access, db.automations).get(id), orgId);
    },
    async list(orgId, options) {
      return offsetPage(readView(access, db.automations).ordered(db.automationsByOrg, orgId), options);
    },
    async listEnabledBySource(orgId, source) {
      return readView(access, db.automations).group(db.enabledAutomationsBySource, pairKey(orgId, source)).map(cloneJson);
    },
    async update(record) {
      const row = cloneJson(record);
      return access.write(() => {
        const current = db.automations.live.get(row.id);
        if (current === undefined || current.org_id !== row.org_id) return false;
        db.automations.put(row);
        return true;
      });
    },
    async markTriggered(orgId, ids, at) {
      const targets = [...ids];
      await access.write(() => {
        for (const id of targets) {
          const current = db.automations.live.get(id);
          // A new object, never an in-place edit: the undo log may hold `current` as a pre-image.
          if (current !== undefined && current.org_id === orgId) {
            db.automations.put({ ...current, last_triggered_at: at });
          }
        }
      });
    },
    async delete(orgId, id) {
      return access.write(() => deleteOwned(db.automations, orgId, id));
    },
  };
}
