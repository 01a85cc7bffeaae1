/**
 * Deliveries, listed newest first (optionally by source or status, each with an index of its
 * own), and the dedup claims that decide which of many redeliveries is recorded as new.
 * @module
 */
import type { DedupClaim, DeliveriesRepository, DeliveryRecord, DeliveryWrite } from '@agent-platform/core';
import { GroupCommit } from '../batching/group-commit.js';
import { fromText, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { DELIVERY_DATA, deliveryData, deliveryPayload } from './delivery-rows.js';
import { CLAIM_ATTEMPTS, prepareDeliveryWrite, recordDeliveryBatch, type PreparedDeliveryWrite } from './delivery-batch.js';
import { insertOrConflict, limitOffset, offsetPage, recordOf, type DataRow } from './rows.js';

/** What the adapter does around claims: prune expired ones now and then, off the caller's path. */
export interface ClaimHooks {
  claimed(now: string): void;
}

/**
 * One statement decides the claim: the INSERT takes a free key, or an expired claim's row under
 * its row lock (ON CONFLICT ... DO UPDATE ... WHERE expired) — so of racing claimers, in one
 * process or many, exactly one gets a row back. The holder is read in the same statement.
 */
const CLAIM = `
WITH taken AS (
  INSERT INTO agent_platform.dedup_claims AS c (org_id, source, key, delivery_id, expires_at)
  VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (org_id, source, key) DO UPDATE
    SET delivery_id = EXCLUDED.delivery_id, expires_at = EXCLUDED.expires_at
    WHERE c.expires_at <= $6
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM taken) AS taken,
       (SELECT delivery_id FROM agent_platform.dedup_claims
         WHERE org_id = $1 AND source = $2 AND key = $3 AND expires_at > $6) AS holder`;

interface ClaimRow {
  taken: boolean;
  holder: string | null;
}

/** Where the adapter's own `recordDelivery` sends its writes: a group commit (none in a transaction). */
export type DeliveryBatcher = GroupCommit<PreparedDeliveryWrite, { duplicateOf: string | null }>;

/**
 * A group commit of delivery writes over `sql` (the adapter's own, outside any transaction): each
 * batch one statement, so one commit.
 */
export function deliveryBatcher(sql: Sql, hooks: ClaimHooks, limits: { maxBatch: number; maxInFlight: number }): DeliveryBatcher {
  return new GroupCommit({
    write: (batch) => recordDeliveryBatch(sql, batch, hooks.claimed),
    key: (write) => write.batchKey,
    ...limits,
  });
}

/**
 * @param batcher - The adapter's group commit, for its own repositories; inside a transaction
 *   there is none, and a delivery is written by the transaction's own statement.
 */
export function deliveriesRepository(sql: Sql, hooks: ClaimHooks, batcher?: DeliveryBatcher): DeliveriesRepository {
  return {
    async insert(record) {
      await insertOrConflict(
        sql,
        `INSERT INTO agent_platform.deliveries (id, org_id, source, status, received_at, data, payload)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) ON CONFLICT DO NOTHING RETURNING 1`,
        [
          toText(record.id),
          toText(record.org_id),
          toText(record.source),
          toText(record.status),
          record.received_at,
          deliveryData(record),
          deliveryPayload(record),
        ],
        `A delivery with id ${record.id} already exists`,
      );
    },
    async get(orgId, id) {
      const { rows } = await sql.query<DataRow>(`SELECT ${DELIVERY_DATA} AS data FROM agent_platform.deliveries WHERE id = $1 AND org_id = $2`, [
        toText(id),
        toText(orgId),
      ]);
      return recordOf<DeliveryRecord>(rows);
    },
    async list(orgId, options) {
      const params: unknown[] = [toText(orgId)];
      let filter = 'org_id = $1';
      if (options.source !== undefined) {
        params.push(toText(options.source));
        filter += ` AND source = $${params.length}`;
      }
      if (options.status !== undefined) {
        params.push(toText(options.status));
        filter += ` AND status = $${params.length}`;
      }
      const [limit, offset] = limitOffset(options);
      params.push(limit, offset);
      return offsetPage<DeliveryRecord>(
        sql,
        `SELECT (SELECT count(*) FROM agent_platform.deliveries WHERE ${filter})::int AS total,
                array(SELECT ${DELIVERY_DATA} FROM agent_platform.deliveries WHERE ${filter}
                      ORDER BY received_at DESC, id DESC LIMIT $${params.length - 1} OFFSET $${params.length}) AS items`,
        params,
      );
    },
    async claimDedupKey(claim) {
      const params = claimParams(claim);
      for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt += 1) {
        const { rows } = await sql.query<ClaimRow>(CLAIM, params);
        const row = rows[0];
        if (row?.taken) {
          hooks.claimed(claim.now);
          return null;
        }
        if (row?.holder) return fromText(row.holder);
      }
      throw new Error(`claimDedupKey: the claim of key "${claim.key}" changed hands ${CLAIM_ATTEMPTS} times in a row`);
    },
    async recordDelivery(write: DeliveryWrite) {
      const prepared = prepareDeliveryWrite(write);
      if (batcher) return batcher.submit(prepared);
      const [outcome] = await recordDeliveryBatch(sql, [prepared], hooks.claimed);
      if (!outcome?.ok) throw outcome?.error;
      return outcome.value;
    },
  };
}

/** Read once, when called: later changes to `claim` do not reach the statement. */
function claimParams(claim: DedupClaim): string[] {
  return [toText(claim.orgId), toText(claim.source), toText(claim.key), toText(claim.deliveryId), claim.expiresAt, claim.now];
}

/**
 * Deletes up to `limit` claims that expired by `now`, soonest first, skipping rows a claimer holds
 * locked; the DELETE checks the expiry again on the row's latest version, so a claim renewed in
 * the meantime stays.
 */
export const PRUNE_EXPIRED_CLAIMS = `
DELETE FROM agent_platform.dedup_claims d
USING (SELECT org_id, source, key FROM agent_platform.dedup_claims
       WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED) AS x
WHERE d.org_id = x.org_id AND d.source = x.source AND d.key = x.key AND d.expires_at <= $1`;
