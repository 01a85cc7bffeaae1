/**
 * Custom webhooks: one per (org, source), listed oldest first.
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import type { WebhookRecord, WebhooksRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { pairKey } from '../database/keys.js';
import { assertNew, byCreation, copy, copyOwned, deleteOwned } from './rows.js';

/** The insert rule, run against live state by whoever holds the lock (or by seeding). */
export function insertWebhook(db: Database, row: WebhookRecord): void {
  assertNew(db.webhooks, row, 'A webhook');
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
  const holder = db.webhooks.live.find(db.webhooksBySource, pairKey(row.org_id, row.source));
  if (holder !== undefined && holder.id !== row.id) {
    throw new StorageConflictError(`The org already has a webhook for source "${row.source}"`);
  }
}

export function webhooksRepository(db: Database, access: Access): WebhooksRepository {
  return {
    async insert(record) {
      const row = cloneJson(record);
      await access.write(() => insertWebhook(db, row));
    },
    async get(orgId, id) {
      return copyOwned(readView(access, db.webhooks).get(id), orgId);
    },
    async getBySource(orgId, source) {
      return copy(readView(access, db.webhooks).find(db.webhooksBySource, pairKey(orgId, source)));
    },
    async list(orgId, { limit, offset }) {
      const rows = readView(access, db.webhooks).group(db.webhooksByOrg, orgId).sort(byCreation);
      return { items: rows.slice(offset, offset + limit).map(cloneJson), total: rows.length };
    },
    async update(record) {
      const row = cloneJson(record);
      return access.write(() => updateWebhook(db, row));
    },
    async delete(orgId, id) {
      return access.write(() => deleteOwned(db.webhooks, orgId, id));
    },
  };
}
