/**
 * Outbound subscriptions: listed per org oldest first, the enabled ones looked up per org for
 * every event's fan-out, and deleted together with their messages.
 * @module
 */
import type { SubscriptionsRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { subscriptionKey } from '../database/keys.js';
import { offsetPage } from '../database/pages.js';
import { copyOwned, deleteOwned, insertNew } from './rows.js';

/**
 * Deletes the org's subscription and every message of it, in one step under the lock, so no
 * sender claims a message of a subscription that is gone. Messages go even when the
 * subscription row is already gone: nothing else would ever remove them.
 */
function deleteSubscription(db: Database, orgId: string, id: string): boolean {
  // `all()` is an array read before any delete, so removing rows from the group is safe.
  for (const message of db.outboundMessages.live.ordered(db.messagesBySubscription, subscriptionKey(orgId, id)).all()) {
    db.outboundMessages.delete(message.id);
  }
  return deleteOwned(db.subscriptions, orgId, id);
}

export function subscriptionsRepository(db: Database, access: Access): SubscriptionsRepository {
  return {
    async insert(record) {
      const row = cloneJson(record);
      await access.write(() => insertNew(db.subscriptions, row, 'A subscription'));
    },
    async get(orgId, id) {
      return copyOwned(readView(access, db.subscriptions).get(id), orgId);
    },
    async list(orgId, options) {
      return offsetPage(readView(access, db.subscriptions).ordered(db.subscriptionsByOrg, orgId), options);
    },
    async listEnabled(orgId) {
      return readView(access, db.subscriptions).group(db.enabledSubscriptionsByOrg, orgId).map(cloneJson);
    },
    async update(record) {
      const row = cloneJson(record);
      return access.write(() => {
        const current = db.subscriptions.live.get(row.id);
        if (current === undefined || current.org_id !== row.org_id) return false;
        db.subscriptions.put(row);
        return true;
      });
    },
    async delete(orgId, id) {
      return access.write(() => deleteSubscription(db, orgId, id));
    },
  };
}
