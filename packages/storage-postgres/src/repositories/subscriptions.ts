/**
 * Outbound subscriptions, listed per org oldest first. The enabled ones of an org come from the
 * org's rows in the same index: an org has few subscriptions, so no index of their own.
 * @module
 */
import type { SubscriptionRecord, SubscriptionsRepository } from '@agent-platform/core';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { insertOrConflict, limitOffset, offsetPage, recordOf, recordsOf, type DataRow } from './rows.js';

/**
 * The subscription and its messages in one statement, so they go together outside a
 * transaction too. The messages go whether or not the subscription row is still there: nothing
 * else would ever remove them.
 */
const DELETE_SUBSCRIPTION = `
WITH messages AS (
  DELETE FROM agent_platform.outbound_messages WHERE org_id = $2 AND subscription_id = $1
)
DELETE FROM agent_platform.subscriptions WHERE id = $1 AND org_id = $2 RETURNING 1`;

export function subscriptionsRepository(sql: Sql): SubscriptionsRepository {
  return {
    async insert(record) {
      await insertOrConflict(
        sql,
        `INSERT INTO agent_platform.subscriptions (id, org_id, enabled, created_at, data)
         VALUES ($1, $2, $3, $4, $5::jsonb) ON CONFLICT DO NOTHING RETURNING 1`,
        [toText(record.id), toText(record.org_id), record.enabled, record.created_at, toJsonb(record)],
        `A subscription with id ${record.id} already exists`,
      );
    },
    async get(orgId, id) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.subscriptions WHERE id = $1 AND org_id = $2', [
        toText(id),
        toText(orgId),
      ]);
      return recordOf<SubscriptionRecord>(rows);
    },
    async list(orgId, options) {
      return offsetPage<SubscriptionRecord>(
        sql,
        `SELECT (SELECT count(*) FROM agent_platform.subscriptions WHERE org_id = $1)::int AS total,
                array(SELECT data::text FROM agent_platform.subscriptions WHERE org_id = $1
                      ORDER BY created_at, id LIMIT $2 OFFSET $3) AS items`,
        [toText(orgId), ...limitOffset(options)],
      );
    },
    async listEnabled(orgId) {
      // Ordered so the answer is the same every time (the port allows any order).
      const { rows } = await sql.query<DataRow>(
        `SELECT data::text AS data FROM agent_platform.subscriptions WHERE org_id = $1 AND enabled ORDER BY created_at, id`,
        [toText(orgId)],
      );
      return recordsOf<SubscriptionRecord>(rows);
    },
    async update(record) {
      const { rowCount } = await sql.query(
        `UPDATE agent_platform.subscriptions SET enabled = $3, created_at = $4, data = $5::jsonb WHERE id = $1 AND org_id = $2`,
        [toText(record.id), toText(record.org_id), record.enabled, record.created_at, toJsonb(record)],
      );
      return rowCount > 0;
    },
    async delete(orgId, id) {
      // Rows back, not the command's count: the statement has two DELETEs.
      const { rows } = await sql.query(DELETE_SUBSCRIPTION, [toText(id), toText(orgId)]);
      return rows.length > 0;
    },
  };
}
