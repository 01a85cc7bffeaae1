/**
 * Outbound messages: inserted in batches (all or nothing), listed per subscription newest first
 * (optionally by status, from an index of its own), and worked as a queue — `claimDue` leases the
 * soonest due pending messages across orgs, `transition` is the one compare-and-set that changes
 * a message. Both run under the store's write lock, so each is one atomic step: concurrent claims
 * never take the same message.
 *
 * `claimDue` reads the pending messages soonest due first and stops at the first one not yet due,
 * so its cost is the leased messages it passes over plus the ones it takes.
 * @module
 */
import { StorageConflictError } from '@agent-platform/core';
import { OUTBOUND_MESSAGE_PATCH_FIELDS } from '@agent-platform/core/adapter-kit';
import type { OutboundClaim, OutboundMessageGuard, OutboundMessagePatch, OutboundMessageRecord, OutboundMessagesRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import { ALL, type Database } from '../database/database.js';
import { subscriptionKey, subscriptionStatusKey } from '../database/keys.js';
import { offsetPage } from '../database/pages.js';
import { instantOf } from '../table/index.js';
import { copyOwned } from './rows.js';

/** All or nothing: every id is checked (against the store and the batch) before any is written. */
function insertMessages(db: Database, rows: readonly OutboundMessageRecord[]): void {
  const ids = new Set<string>();
  for (const row of rows) {
    if (ids.has(row.id) || db.outboundMessages.live.get(row.id) !== undefined) {
      throw new StorageConflictError(`An outbound message with id ${row.id} already exists`);
    }
    ids.add(row.id);
  }
  for (const row of rows) db.outboundMessages.put(row);
}

function guardAllows(row: OutboundMessageRecord, guard: OutboundMessageGuard): boolean {
  if (!guard.from.includes(row.status)) return false;
  return guard.leaseOwner === undefined || (row.lease_owner ?? null) === guard.leaseOwner;
}

/**
 * Applies a transition to the org's live message and returns the row now stored (the caller
 * copies it), or `null` when the guard refuses. A new object, never an in-place edit: the undo
 * log may hold the current row as a pre-image.
 */
function transitionMessage(db: Database, orgId: string, id: string, guard: OutboundMessageGuard, patch: OutboundMessagePatch): OutboundMessageRecord | null {
  const current = db.outboundMessages.live.get(id);
  if (current === undefined || current.org_id !== orgId || !guardAllows(current, guard)) return null;
  const next: OutboundMessageRecord = { ...current };
  for (const field of OUTBOUND_MESSAGE_PATCH_FIELDS) {
    const value = patch[field];
    if (value !== undefined) (next as Record<string, unknown>)[field] = value;
  }
  db.outboundMessages.put(next);
  return next;
}

/** Leases up to `max` due, unleased pending messages to `owner`, soonest due first (then by id). */
function claimDue(db: Database, { owner, max, leaseMs, now }: OutboundClaim): OutboundMessageRecord[] {
  const at = now.getTime();
  const due = db.outboundMessages.live.ordered(db.pendingMessagesByDue, ALL);
  const chosen: OutboundMessageRecord[] = [];
  for (let position = 0; position < due.size && chosen.length < max; position += 1) {
    const row = due.at(position);
    if (row === undefined) continue;
    if (instantOf(row.next_attempt_at ?? '') > at) break;
    if (row.lease_expires_at !== null && instantOf(row.lease_expires_at) > at) continue;
    chosen.push(row);
  }
  // Written after choosing: a lease keeps a message where it is in the group, but the group
  // is not read while it changes.
  const lease_expires_at = new Date(at + leaseMs).toISOString();
  return chosen.map((row) => {
    const next = { ...row, lease_owner: owner, lease_expires_at };
    db.outboundMessages.put(next);
    return cloneJson(next);
  });
}

export function outboundMessagesRepository(db: Database, access: Access): OutboundMessagesRepository {
  return {
    async insertMany(records) {
      const rows = records.map(cloneJson);
      await access.write(() => insertMessages(db, rows));
    },
    async get(orgId, id) {
      return copyOwned(readView(access, db.outboundMessages).get(id), orgId);
    },
    async listBySubscription(orgId, subscriptionId, { limit, offset, status }) {
      const messages = readView(access, db.outboundMessages);
      const rows =
        status === undefined
          ? messages.ordered(db.messagesBySubscription, subscriptionKey(orgId, subscriptionId))
          : messages.ordered(db.messagesBySubscriptionStatus, subscriptionStatusKey(orgId, subscriptionId, status));
      return offsetPage(rows, { limit, offset });
    },
    async claimDue(claim) {
      // Copied before queueing, like every write's arguments.
      const request: OutboundClaim = { ...claim, max: Math.floor(claim.max), now: new Date(claim.now.getTime()) };
      return access.write(() => claimDue(db, request));
    },
    async transition(orgId, id, guard, patch) {
      // Copied before queueing, so changes the caller makes while the write waits do not land.
      const rule = cloneJson(guard);
      const changes = cloneJson(patch);
      return access.write(() => {
        const next = transitionMessage(db, orgId, id, rule, changes);
        return next === null ? null : cloneJson(next);
      });
    },
  };
}
