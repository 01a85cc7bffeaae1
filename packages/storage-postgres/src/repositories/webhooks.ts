/**
 * Custom webhooks: one per (org, source), listed oldest first.
 * @module
 */
import type { WebhookRecord, WebhooksRepository } from '@agent-platform/core';
import { StorageConflictError } from '@agent-platform/core';
import { isUniqueViolation } from '../sql/errors.js';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { insertOrConflict, limitOffset, offsetPage, recordOf, type DataRow } from './rows.js';

export function webhooksRepository(sql: Sql): WebhooksRepository {
  return {
    async insert(record) {
      await insertOrConflict(
        sql,
        `INSERT INTO agent_platform.webhooks (id, org_id, source, created_at, data) VALUES ($1, $2, $3, $4, $5::jsonb)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [toText(record.id), toText(record.org_id), toText(record.source), record.created_at, toJsonb(record)],
        `The webhook id exists, or the org already has a webhook for source "${record.source}"`,
      );
    },
    async get(orgId, id) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.webhooks WHERE id = $1 AND org_id = $2', [
        toText(id),
        toText(orgId),
      ]);
      return recordOf<WebhookRecord>(rows);
    },
    async getBySource(orgId, source) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.webhooks WHERE org_id = $1 AND source = $2', [
        toText(orgId),
        toText(source),
      ]);
      return recordOf<WebhookRecord>(rows);
    },
    async list(orgId, options) {
      return offsetPage<WebhookRecord>(
        sql,
        `SELECT (SELECT count(*) FROM agent_platform.webhooks WHERE org_id = $1)::int AS total,
                array(SELECT data::text FROM agent_platform.webhooks WHERE org_id = $1
                      ORDER BY created_at, id LIMIT $2 OFFSET $3) AS items`,
        [toText(orgId), ...limitOffset(options)],
      );
    },
    async update(record) {
      try {
        // Guarded: moving to a source the org already has fails inside the database.
        const { rowCount } = await sql.guardedQuery(
          `UPDATE agent_platform.webhooks SET source = $3, created_at = $4, data = $5::jsonb WHERE id = $1 AND org_id = $2`,
          [toText(record.id), toText(record.org_id), toText(record.source), record.created_at, toJsonb(record)],
        );
        return rowCount > 0;
      } catch (error) {
        if (isUniqueViolation(error) || error instanceof StorageConflictError) {
          throw new StorageConflictError(`The org already has a webhook for source "${record.source}"`);
        }
        throw error;
      }
    },
    async delete(orgId, id) {
      const { rowCount } = await sql.query('DELETE FROM agent_platform.webhooks WHERE id = $1 AND org_id = $2', [toText(id), toText(orgId)]);
      return rowCount > 0;
    },
  };
}
