/**
 * Deliveries, listed per org newest first and capped per org and in total (the oldest are
 * evicted), and the dedup claims that decide which of many redeliveries is recorded as new.
 * Claims are kept apart from deliveries, so evicting a delivery never frees its dedup key early.
 * @module
 */
import type { DedupClaim, DeliveriesRepository, DeliveryRecord, DeliveryWrite, RunRecord } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import { ALL, type Database, type DeliveryRow } from '../database/database.js';
import { claimKey } from '../database/keys.js';
import { instantOf } from '../table/index.js';
import { assertNew } from './rows.js';
import { assertNewRuns, insertRuns } from './runs.js';

/** Expired dedup claims dropped per claim made; more than one, so a backlog shrinks. */
const CLAIMS_PRUNED_PER_CLAIM = 4;

/** A private copy of a record as it is stored: its payload as bytes off the heap where it can be. */
function toRow(db: Database, record: DeliveryRecord): DeliveryRow {
  return record.payload_json === null ? record : { ...record, payload_json: db.texts.store(record.payload_json) };
}

/** A private copy of a stored delivery, as the record it was stored from. */
function toRecord(db: Database, row: DeliveryRow): DeliveryRecord {
  const payload = row.payload_json;
  if (payload === null || typeof payload === 'string') return cloneJson(row as DeliveryRecord);
  const record: DeliveryRecord = cloneJson({ ...row, payload_json: null });
  record.payload_json = db.texts.read(payload);
  return record;
}

/**
 * The insert rule, run against live state by whoever holds the lock (or by seeding), on a private
 * copy of the record.
 */
export function insertDelivery(db: Database, record: DeliveryRecord): void {
  assertNew(db.deliveries, record, 'A delivery');
  const row = toRow(db, record);
  db.deliveries.put(row);
  // The org and the store are each at most one over their bound here, and evicting the org's
  // oldest takes the store back under its own, so this evicts one delivery at most. A delete is
  // a write like any other: a transaction's rollback puts the evicted delivery back.
  while (db.deliveriesByOrg.size(row.org_id) > db.maxDeliveriesPerOrg) {
    const oldest = db.deliveriesByOrg.oldest(row.org_id);
    if (oldest === undefined || !db.deliveries.delete(oldest)) break;
  }
  while (db.deliveriesByAge.size > db.maxDeliveries) {
    const oldest = db.deliveriesByAge.oldest();
    if (oldest === undefined || !db.deliveries.delete(oldest)) break;
  }
}

/** The delivery holding a live claim on the key, if any: a claim lapses at `expiresAt`. */
function liveHolder(db: Database, claim: Omit<DedupClaim, 'deliveryId'>): string | null {
  const holder = db.dedupClaims.live.get(claimKey(claim.orgId, claim.source, claim.key));
  return holder !== undefined && instantOf(holder.expires_at) > instantOf(claim.now) ? holder.delivery_id : null;
}

function claimDedupKey(db: Database, claim: DedupClaim): string | null {
  pruneDedupClaims(db, instantOf(claim.now));
  const holder = liveHolder(db, claim);
  if (holder !== null) return holder;
  db.dedupClaims.put({
    org_id: claim.orgId,
    source: claim.source,
    key: claim.key,
    delivery_id: claim.deliveryId,
    expires_at: claim.expiresAt,
  });
  return null;
}

/**
 * The claim, the delivery and its runs, or nothing: every id is checked before anything is
 * written, so a conflict leaves the claim free and no row behind.
 */
function recordDelivery(db: Database, write: { delivery: DeliveryRecord; runs: RunRecord[]; claim: DeliveryWrite['claim'] }): { duplicateOf: string | null } {
  const { delivery, runs, claim } = write;
  const holder = claim ? liveHolder(db, claim) : null;
  if (holder !== null) return { duplicateOf: holder };
  assertNew(db.deliveries, delivery, 'A delivery');
  assertNewRuns(db, runs);
  if (claim) claimDedupKey(db, { ...claim, deliveryId: delivery.id });
  insertDelivery(db, delivery);
  insertRuns(db, runs);
  return { duplicateOf: null };
}

/** Drops a few claims that expired by `now`, soonest first; O(1) per claim made. */
function pruneDedupClaims(db: Database, now: number): void {
  for (let n = 0; n < CLAIMS_PRUNED_PER_CLAIM; n += 1) {
    const primaryKey = db.dedupClaimsByExpiry.oldest(ALL);
    const row = primaryKey === undefined ? undefined : db.dedupClaims.live.get(primaryKey);
    if (primaryKey === undefined || row === undefined || instantOf(row.expires_at) > now) return;
    db.dedupClaims.delete(primaryKey);
  }
}

export function deliveriesRepository(db: Database, access: Access): DeliveriesRepository {
  return {
    async insert(record) {
      const row = cloneJson(record);
      await access.write(() => insertDelivery(db, row));
    },
    async get(orgId, id) {
      const row = readView(access, db.deliveries).get(id);
      return row !== undefined && row.org_id === orgId ? toRecord(db, row) : null;
    },
    async list(orgId, { limit, offset, source, status }) {
      const rows = readView(access, db.deliveries).ordered(db.deliveriesByOrg, orgId);
      if (source === undefined && status === undefined) return { items: rows.page(offset, limit).map((row) => toRecord(db, row)), total: rows.size };
      // A filtered list scans the org's deliveries: at most `maxDeliveriesPerOrg` of them.
      const items: DeliveryRecord[] = [];
      let total = 0;
      for (const row of rows.all()) {
        if ((source !== undefined && row.source !== source) || (status !== undefined && row.status !== status)) continue;
        if (total >= offset && items.length < limit) items.push(toRecord(db, row));
        total += 1;
      }
      return { items, total };
    },
    async claimDedupKey(claim) {
      const request = { ...claim };
      return access.write(() => claimDedupKey(db, request));
    },
    async recordDelivery(write) {
      const copy = { delivery: cloneJson(write.delivery), runs: write.runs.map(cloneJson), claim: write.claim ? { ...write.claim } : null };
      return access.write(() => recordDelivery(db, copy));
    },
  };
}
