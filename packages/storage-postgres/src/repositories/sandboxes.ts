/**
 * Sandboxes: looked up by id alone (the executor's view), listed per user in cursor pages.
 * @module
 */
import type { SandboxRecord, SandboxesRepository, SandboxStatus } from '@agent-platform/core';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { insertOrConflict, recordOf, type DataRow } from './rows.js';
import { userPage } from './user-pages.js';

export function sandboxesRepository(sql: Sql): SandboxesRepository {
  return {
    async insert(record) {
      await insertOrConflict(
        sql,
        `INSERT INTO agent_platform.sandboxes (id, user_id, created_at, data) VALUES ($1, $2, $3, $4::jsonb)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [toText(record.id), toText(record.created_by_user_id), record.created_at, toJsonb(record)],
        `A sandbox with id ${record.id} already exists`,
      );
    },
    async get(id) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.sandboxes WHERE id = $1', [toText(id)]);
      return recordOf<SandboxRecord>(rows);
    },
    async listByUser(userId, options) {
      return userPage<SandboxRecord>(sql, 'agent_platform.sandboxes', userId, options);
    },
    async update(record) {
      const { rowCount } = await sql.query('UPDATE agent_platform.sandboxes SET user_id = $2, created_at = $3, data = $4::jsonb WHERE id = $1', [
        toText(record.id),
        toText(record.created_by_user_id),
        record.created_at,
        toJsonb(record),
      ]);
      return rowCount > 0;
    },
    async delete(id) {
      const { rowCount } = await sql.query('DELETE FROM agent_platform.sandboxes WHERE id = $1', [toText(id)]);
      return rowCount > 0;
    },
    async countByStatus() {
      // A scan: sandboxes live as long as their runs or users keep them, so the table stays small.
      const { rows } = await sql.query<{ status: SandboxStatus; n: number }>(
        `SELECT data->>'status' AS status, count(*)::int AS n FROM agent_platform.sandboxes GROUP BY 1`,
      );
      const counts: Partial<Record<SandboxStatus, number>> = {};
      for (const row of rows) if (row.status) counts[row.status] = row.n;
      return counts;
    },
  };
}
