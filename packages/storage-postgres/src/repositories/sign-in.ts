/**
 * Console sign-in: `memberships` by (org, user), listed by org oldest first, and
 * `console_sessions` by the hash of their id, each record whole in `data`.
 * @module
 */
import type { ConsoleSessionRecord, ConsoleSessionsRepository, MembershipRecord, MembershipsRepository } from '@agent-platform/core';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { insertOrConflict, recordOf, recordsOf, type DataRow } from './rows.js';

export function membershipsRepository(sql: Sql): MembershipsRepository {
  const get = async (orgId: string, userId: string) => {
    const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.memberships WHERE org_id = $1 AND user_id = $2', [
      toText(orgId),
      toText(userId),
    ]);
    return recordOf<MembershipRecord>(rows);
  };
  return {
    get,
    async list(orgId) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.memberships WHERE org_id = $1 ORDER BY created_at, user_id', [
        toText(orgId),
      ]);
      return recordsOf<MembershipRecord>(rows);
    },
    async insertOrGet(record) {
      // Two statements, not one: the read must see a row a concurrent first sign-in committed
      // while this insert waited on it, which a second statement's snapshot does.
      const { rows } = await sql.query<DataRow>(
        `INSERT INTO agent_platform.memberships (org_id, user_id, role, created_at, data) VALUES ($1, $2, $3, $4, $5::jsonb)
         ON CONFLICT (org_id, user_id) DO NOTHING RETURNING data::text AS data`,
        [toText(record.org_id), toText(record.user_id), toText(record.role), record.created_at, toJsonb(record)],
      );
      const inserted = recordOf<MembershipRecord>(rows);
      if (inserted) return inserted;
      const stored = await get(record.org_id, record.user_id);
      if (!stored) throw new Error('membership vanished between its insert and its read');
      return stored;
    },
    async setRole(orgId, userId, role) {
      const { rows } = await sql.query<DataRow>(
        `UPDATE agent_platform.memberships SET role = $3, data = jsonb_set(data, '{role}', to_jsonb($3::text))
         WHERE org_id = $1 AND user_id = $2 RETURNING data::text AS data`,
        [toText(orgId), toText(userId), toText(role)],
      );
      return recordOf<MembershipRecord>(rows);
    },
  };
}

export function consoleSessionsRepository(sql: Sql): ConsoleSessionsRepository {
  return {
    async insert(record) {
      await insertOrConflict(
        sql,
        `INSERT INTO agent_platform.console_sessions (id_hash, expires_at, data) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [toText(record.id_hash), record.expires_at, toJsonb(record)],
        'A console session with this hash already exists',
      );
    },
    async get(idHash) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.console_sessions WHERE id_hash = $1', [toText(idHash)]);
      return recordOf<ConsoleSessionRecord>(rows);
    },
    async delete(idHash) {
      const { rowCount } = await sql.query('DELETE FROM agent_platform.console_sessions WHERE id_hash = $1', [toText(idHash)]);
      return rowCount > 0;
    },
    async deleteExpired(now, limit) {
      // SKIP LOCKED: two sign-ins sweeping at once take different rows instead of waiting.
      const { rowCount } = await sql.query(
        `DELETE FROM agent_platform.console_sessions WHERE id_hash IN (
           SELECT id_hash FROM agent_platform.console_sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [now, limit],
      );
      return rowCount;
    },
  };
}
