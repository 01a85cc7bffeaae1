/**
 * Automations, listed newest first; the enabled ones of an (org, source) come from a partial index,
 * so ingest never reads another org's, another source's or a disabled automation.
 * @module
 */
import type { AutomationRecord, AutomationsRepository } from '@agent-platform/core';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { insertOrConflict, limitOffset, offsetPage, recordOf, recordsOf, type DataRow } from './rows.js';

export function automationsRepository(sql: Sql): AutomationsRepository {
  return {
    async insert(record) {
      await insertOrConflict(
        sql,
        `INSERT INTO agent_platform.automations (id, org_id, source, enabled, created_at, data)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb) ON CONFLICT DO NOTHING RETURNING 1`,
        [toText(record.id), toText(record.org_id), toText(record.trigger.source), record.enabled, record.created_at, toJsonb(record)],
        `An automation with id ${record.id} already exists`,
      );
    },
    async get(orgId, id) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.automations WHERE id = $1 AND org_id = $2', [
        toText(id),
        toText(orgId),
      ]);
      return recordOf<AutomationRecord>(rows);
    },
    async list(orgId, options) {
      return offsetPage<AutomationRecord>(
        sql,
        `SELECT (SELECT count(*) FROM agent_platform.automations WHERE org_id = $1)::int AS total,
                array(SELECT data::text FROM agent_platform.automations WHERE org_id = $1
                      ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3) AS items`,
        [toText(orgId), ...limitOffset(options)],
      );
    },
    async listEnabledBySource(orgId, source) {
      // Ordered by id only so the answer is the same every time (the port allows any order).
      const { rows } = await sql.query<DataRow>(
        `SELECT data::text AS data FROM agent_platform.automations
         WHERE org_id = $1 AND source = $2 AND enabled ORDER BY id`,
        [toText(orgId), toText(source)],
      );
      return recordsOf<AutomationRecord>(rows);
    },
    async update(record) {
      const { rowCount } = await sql.query(
        `UPDATE agent_platform.automations SET source = $3, enabled = $4, created_at = $5, data = $6::jsonb
         WHERE id = $1 AND org_id = $2`,
        [toText(record.id), toText(record.org_id), toText(record.trigger.source), record.enabled, record.created_at, toJsonb(record)],
      );
      return rowCount > 0;
    },
    async markTriggered(orgId, ids, at) {
      if (ids.length === 0) return;
      await sql.query(
        `UPDATE agent_platform.automations SET data = jsonb_set(data, '{last_triggered_at}', to_jsonb($3::text))
         WHERE org_id = $1 AND id = ANY ($2::text[])`,
        [toText(orgId), ids.map(toText), toText(at)],
      );
    },
    async delete(orgId, id) {
      const { rowCount } = await sql.query('DELETE FROM agent_platform.automations WHERE id = $1 AND org_id = $2', [toText(id), toText(orgId)]);
      return rowCount > 0;
    },
  };
}
