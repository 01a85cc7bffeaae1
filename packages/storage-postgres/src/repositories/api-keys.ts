/**
 * API keys, found by id and by the hash of the key; both are unique.
 * @module
 */
import type { ApiKeyRecord, ApiKeysRepository } from '@agent-platform/core';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { insertOrConflict, recordOf, recordsOf, type DataRow } from './rows.js';

export function apiKeysRepository(sql: Sql): ApiKeysRepository {
  return {
    async insert(record) {
      await insertOrConflict(
        sql,
        `INSERT INTO agent_platform.api_keys (id, key_hash, user_id, created_at, data) VALUES ($1, $2, $3, $4, $5::jsonb)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [toText(record.id), toText(record.key_hash), toText(record.user_id), record.created_at, toJsonb(record)],
        'An API key with this id or hash already exists',
      );
    },
    async get(id) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.api_keys WHERE id = $1', [toText(id)]);
      return recordOf<ApiKeyRecord>(rows);
    },
    async getByHash(keyHash) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.api_keys WHERE key_hash = $1', [toText(keyHash)]);
      return recordOf<ApiKeyRecord>(rows);
    },
    async listByUser(userId) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.api_keys WHERE user_id = $1 ORDER BY created_at, id', [
        toText(userId),
      ]);
      return recordsOf<ApiKeyRecord>(rows);
    },
    async touch(id, at) {
      await sql.query(`UPDATE agent_platform.api_keys SET data = jsonb_set(data, '{last_used_at}', to_jsonb($2::text)) WHERE id = $1`, [
        toText(id),
        toText(at),
      ]);
    },
    async delete(id) {
      const { rowCount } = await sql.query('DELETE FROM agent_platform.api_keys WHERE id = $1', [toText(id)]);
      return rowCount > 0;
    },
  };
}
