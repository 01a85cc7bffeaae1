/**
 * Many deliveries recorded in one statement (group commit, see `group-commit.ts`): their dedup
 * claims, the deliveries and their runs, one multi-row INSERT per table, committed together in one
 * round trip. Each delivery gets its own answer: written, or the duplicate of a live claim's holder.
 *
 * - Lock order: claims are inserted sorted by key, so two processes' batches over the same keys
 *   wait for each other instead of deadlocking (and a deadlock, should one happen, is retried).
 * - A delivery whose claim was neither taken nor seen held (its holder committed after the
 *   statement's snapshot) goes again in a new statement, as a lone delivery would.
 * - A batch the database refuses (a value it cannot take, a taken id) is written again one
 *   delivery at a time, so only the delivery at fault fails.
 * @module
 */
import type { DeliveryWrite } from '@agent-platform/core';
import type { Outcome } from '../batching/group-commit.js';
import { isRetryable, isUnavailable } from '../sql/errors.js';
import { fromText, toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { deliveryData, deliveryPayload } from './delivery-rows.js';
import { INSERT_RUNS } from './runs.js';

/** A delivery write with its JSON made once, in the caller's turn, before it joins a batch. */
export interface PreparedDeliveryWrite {
  /** `toText` of the delivery's id: what `data->>'id'` reads. */
  id: string;
  /** The delivery record as stored in `data`: without its payload, which has a column of its own. */
  data: string;
  /** The payload (`payload_json`) as stored in `payload`, or `null`. */
  payload: string | null;
  /** `[id, run]` pairs, as JSON, one per run. */
  runs: string[];
  claim: { key: string; expiresAt: string; now: string } | null;
  /** The dedup key as the group commit keeps apart: org, source and key. */
  batchKey: string | null;
}

export function prepareDeliveryWrite(write: DeliveryWrite): PreparedDeliveryWrite {
  const { delivery, claim } = write;
  const id = toText(delivery.id);
  const owner = JSON.stringify(id);
  return {
    id,
    data: deliveryData(delivery),
    payload: deliveryPayload(delivery),
    runs: write.runs.map((run) => `[${owner},${toJsonb(run)}]`),
    claim: claim ? { key: toText(claim.key), expiresAt: claim.expiresAt, now: claim.now } : null,
    batchKey: claim ? JSON.stringify([delivery.org_id, delivery.source, claim.key]) : null,
  };
}

/**
 * $1: the deliveries (a JSON array of records); $2-$4: per delivery, its claim's key (NULL for
 * none), expiry and `now`; $5: the runs, a JSON array of `[delivery id, run]`; from $6 on, each
 * delivery's payload, a parameter of its own (sent as it is: an array would escape it). One row
 * per delivery, in order: whether it was written, else the live claim's holder (from the snapshot).
 */
function recordBatchStatement(size: number): string {
  const payloads = Array.from({ length: size }, (_, index) => `$${index + 6}::text`).join(', ');
  return `
WITH input AS (
  SELECT d.n, d.value AS data, d.value->>'id' AS id, d.value->>'org_id' AS org_id, d.value->>'source' AS source,
         c.key, c.expires_at, c.now, c.payload
  FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS d(value, n)
  JOIN unnest($2::text[], $3::timestamptz[], $4::timestamptz[], ARRAY[${payloads}]) WITH ORDINALITY AS c(key, expires_at, now, payload, n) USING (n)
), taken AS (
  INSERT INTO agent_platform.dedup_claims AS c (org_id, source, key, delivery_id, expires_at)
  SELECT org_id, source, key, id, expires_at FROM input WHERE key IS NOT NULL
  ORDER BY org_id COLLATE "C", source COLLATE "C", key COLLATE "C"
  ON CONFLICT (org_id, source, key) DO UPDATE
    SET delivery_id = EXCLUDED.delivery_id, expires_at = EXCLUDED.expires_at
    WHERE c.expires_at <= (SELECT i.now FROM input i WHERE i.id = EXCLUDED.delivery_id)
  RETURNING c.delivery_id
), go AS (
  SELECT * FROM input WHERE key IS NULL OR id IN (SELECT delivery_id FROM taken)
), delivery AS (
  INSERT INTO agent_platform.deliveries (id, org_id, source, status, received_at, data, payload)
  SELECT id, org_id, source, data->>'status', (data->>'received_at')::timestamptz, data, payload FROM go
  RETURNING 1
), runs AS (
  ${INSERT_RUNS}
  FROM jsonb_array_elements($5::jsonb) AS p(pair), LATERAL (SELECT p.pair->1) AS r(value)
  WHERE p.pair->>0 IN (SELECT id FROM go)
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM go WHERE go.id = i.id) AS written,
       (SELECT c.delivery_id FROM agent_platform.dedup_claims c
         WHERE c.org_id = i.org_id AND c.source = i.source AND c.key = i.key AND c.expires_at > i.now) AS holder
FROM input i ORDER BY i.n`;
}

/** The statement for each batch size, made once. */
const statements: string[] = [];
export const statementFor = (size: number): string => (statements[size] ??= recordBatchStatement(size));

interface BatchRow {
  written: boolean;
  holder: string | null;
}

/**
 * How often a claim is tried again when it was neither taken nor seen held (here and by
 * `claimDedupKey`): only when its holder committed after the statement's snapshot, which the next
 * statement sees.
 */
export const CLAIM_ATTEMPTS = 5;

export type DeliveryOutcome = Outcome<{ duplicateOf: string | null }>;

/**
 * Records `writes` in as few statements as it can: one, unless claims changed hands under it.
 * `claimed` is told of each claim taken. Throws only when the database cannot be reached (or kept
 * deadlocking): then nothing of the batch is acknowledged; any other failure is one delivery's.
 */
export async function recordDeliveryBatch(sql: Sql, writes: readonly PreparedDeliveryWrite[], claimed: (now: string) => void): Promise<DeliveryOutcome[]> {
  const outcomes: (DeliveryOutcome | undefined)[] = new Array(writes.length);
  let pending = writes.map((_, index) => index);
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > CLAIM_ATTEMPTS) {
      for (const index of pending)
        outcomes[index] = { ok: false, error: new Error('recordDelivery: the claim of its key changed hands too many times in a row') };
      break;
    }
    let rows: BatchRow[];
    try {
      rows = (await sql.query<BatchRow>(statementFor(pending.length), batchParams(pending.map((index) => writes[index] as PreparedDeliveryWrite)))).rows;
    } catch (error) {
      if (isUnavailable(error) || isRetryable(error)) throw error;
      if (pending.length === 1) {
        outcomes[pending[0] as number] = { ok: false, error };
        break;
      }
      // The database refused something in the batch: each alone, so only the one at fault fails.
      for (const index of pending) [outcomes[index]] = await recordDeliveryBatch(sql, [writes[index] as PreparedDeliveryWrite], claimed);
      break;
    }
    const unresolved: number[] = [];
    for (const [position, index] of pending.entries()) {
      const row = rows[position];
      const write = writes[index] as PreparedDeliveryWrite;
      if (row?.written) {
        if (write.claim) claimed(write.claim.now);
        outcomes[index] = { ok: true, value: { duplicateOf: null } };
      } else if (row?.holder) outcomes[index] = { ok: true, value: { duplicateOf: fromText(row.holder) } };
      else unresolved.push(index);
    }
    pending = unresolved;
  }
  return outcomes as DeliveryOutcome[];
}

export function batchParams(writes: readonly PreparedDeliveryWrite[]): unknown[] {
  return [
    `[${writes.map((write) => write.data).join(',')}]`,
    writes.map((write) => write.claim?.key ?? null),
    writes.map((write) => write.claim?.expiresAt ?? null),
    writes.map((write) => write.claim?.now ?? null),
    `[${writes.flatMap((write) => write.runs).join(',')}]`,
    ...writes.map((write) => write.payload),
  ];
}
