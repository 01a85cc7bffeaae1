/**
 * Outbound messages: a queue of their own rows, worked as the run queue works runs.
 *
 * - `status` and `next_attempt_at` are columns derived from `data` by every write (an insert
 *   reads them from the record, a transition from the record as patched), so the two never
 *   disagree. The lease stays in `data`.
 * - `claimDue` is one statement: the due, unleased pending messages are picked soonest first
 *   through the partial index `outbound_messages_due`, locked with `FOR UPDATE SKIP LOCKED`
 *   (a message another sender is claiming right now is passed over, not waited for), and leased
 *   by the UPDATE around them. A message a concurrent claim leased meanwhile is re-checked on its
 *   new version and no longer qualifies, so two claims — in one process or many — never take
 *   the same message.
 * - `transition` is one guarded UPDATE: of concurrent transitions from one state exactly one
 *   finds the row still in it.
 *
 * Times come from the caller (`claim.now`), never from the database's clock.
 * @module
 */
import type { OutboundMessagePatch, OutboundMessageRecord, OutboundMessagesRepository } from '@agent-platform/core';
import { StorageConflictError } from '@agent-platform/core';
import { OUTBOUND_MESSAGE_PATCH_FIELDS } from '@agent-platform/core/adapter-kit';
import { isUniqueViolation } from '../sql/errors.js';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { limitOffset, offsetPage, recordOf, recordsOf, type DataRow } from './rows.js';

const INSERT_MESSAGES = `INSERT INTO agent_platform.outbound_messages (id, org_id, subscription_id, status, next_attempt_at, created_at, data)
  SELECT m.value->>'id', m.value->>'org_id', m.value->>'subscription_id', m.value->>'status',
         (m.value->>'next_attempt_at')::timestamptz, (m.value->>'created_at')::timestamptz, m.value
  FROM jsonb_array_elements($1::jsonb) AS m(value)`;

/** A subscription's messages newest first, and how many there are; `filtered` adds `status = $5`. */
function listStatement(filtered: boolean): string {
  const where = `org_id = $1 AND subscription_id = $2${filtered ? ' AND status = $5' : ''}`;
  return `SELECT (SELECT count(*) FROM agent_platform.outbound_messages WHERE ${where})::int AS total,
                array(SELECT data::text FROM agent_platform.outbound_messages WHERE ${where}
                      ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4) AS items`;
}

/** Leases (`$3`, merged into `data`) up to `$2` pending messages due by `$1` whose lease is unset or lapsed. */
const CLAIM_DUE = `UPDATE agent_platform.outbound_messages SET data = data || $3::jsonb
   WHERE id IN (
     SELECT id FROM agent_platform.outbound_messages
      WHERE status = 'pending' AND next_attempt_at <= $1::timestamptz
        AND (data->>'lease_expires_at' IS NULL OR (data->>'lease_expires_at')::timestamptz <= $1::timestamptz)
      ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
   RETURNING data::text AS data`;

/** A guard's `leaseOwner: null`: the key is absent or JSON null (`->>` is SQL NULL for both). */
const LEASE_FREE = ` AND data->>'lease_owner' IS NULL`;
const LEASE_HELD_BY = ` AND data->>'lease_owner' = $5`;

/** Writes the patch `$4` on the org's message when its status is in `$3`; the columns follow `data`. */
function transitionStatement(lease: string): string {
  return `UPDATE agent_platform.outbound_messages
   SET data = data || $4::jsonb,
       status = (data || $4::jsonb)->>'status',
       next_attempt_at = ((data || $4::jsonb)->>'next_attempt_at')::timestamptz
   WHERE id = $1 AND org_id = $2 AND status = ANY($3::text[])${lease}
   RETURNING data::text AS data`;
}

/** The statements this repository sends, for the query-plan test. */
export const OUTBOUND_MESSAGE_STATEMENTS = { INSERT_MESSAGES, CLAIM_DUE, listStatement, transitionStatement } as const;

/** The members of `patch` a transition writes: those of `OUTBOUND_MESSAGE_PATCH_FIELDS` that are not `undefined`. */
function patchOf(patch: OutboundMessagePatch): OutboundMessagePatch {
  const written: Record<string, unknown> = {};
  for (const field of OUTBOUND_MESSAGE_PATCH_FIELDS) {
    const value = patch[field];
    if (value !== undefined) written[field] = value;
  }
  return written as OutboundMessagePatch;
}

/** Soonest due first, then by id in code-unit order: the order the claim picked them in. */
function byDue(a: OutboundMessageRecord, b: OutboundMessageRecord): number {
  const due = Date.parse(a.next_attempt_at ?? '') - Date.parse(b.next_attempt_at ?? '');
  if (due !== 0 && !Number.isNaN(due)) return due;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function outboundMessagesRepository(sql: Sql): OutboundMessagesRepository {
  return {
    async insertMany(records) {
      if (records.length === 0) return;
      // One statement, so a taken id (in the table or twice in the batch) inserts none of them;
      // guarded, so inside a transaction the failure does not abort it.
      try {
        await sql.guardedQuery(INSERT_MESSAGES, [toJsonb(records)]);
      } catch (error) {
        if (isUniqueViolation(error) || error instanceof StorageConflictError) {
          throw new StorageConflictError('An outbound message with one of these ids already exists');
        }
        throw error;
      }
    },
    async get(orgId, id) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.outbound_messages WHERE id = $1 AND org_id = $2', [
        toText(id),
        toText(orgId),
      ]);
      return recordOf<OutboundMessageRecord>(rows);
    },
    async listBySubscription(orgId, subscriptionId, options) {
      const params: unknown[] = [toText(orgId), toText(subscriptionId), ...limitOffset(options)];
      if (options.status !== undefined) params.push(toText(options.status));
      return offsetPage<OutboundMessageRecord>(sql, listStatement(options.status !== undefined), params);
    },
    async claimDue({ owner, max, leaseMs, now }) {
      const limit = Math.floor(max);
      if (!(limit > 0)) return [];
      const lease = { lease_owner: owner, lease_expires_at: new Date(now.getTime() + leaseMs).toISOString() };
      const { rows } = await sql.query<DataRow>(CLAIM_DUE, [now.toISOString(), limit, toJsonb(lease)]);
      // UPDATE ... RETURNING gives rows in no particular order.
      return recordsOf<OutboundMessageRecord>(rows).sort(byDue);
    },
    async transition(orgId, id, guard, patch) {
      const lease = guard.leaseOwner === undefined ? '' : guard.leaseOwner === null ? LEASE_FREE : LEASE_HELD_BY;
      const { rows } = await sql.query<DataRow>(transitionStatement(lease), [
        toText(id),
        toText(orgId),
        guard.from.map(toText),
        toJsonb(patchOf(patch)),
        ...(typeof guard.leaseOwner === 'string' ? [toText(guard.leaseOwner)] : []),
      ]);
      return recordOf<OutboundMessageRecord>(rows);
    },
  };
}
