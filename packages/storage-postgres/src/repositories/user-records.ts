/**
 * Settings and provider tokens: one record per user, replaced whole by `put`.
 * @module
 */
import type { ProviderTokensRecord, ProviderTokensRepository, SettingsRecord, SettingsRepository } from '@agent-platform/core';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { recordOf, type DataRow } from './rows.js';

export function settingsRepository(sql: Sql): SettingsRepository {
  return {
    async get(userId) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.settings WHERE user_id = $1', [toText(userId)]);
      return recordOf<SettingsRecord>(rows);
    },
    async put(record) {
      await sql.query(
        `INSERT INTO agent_platform.settings (user_id, data) VALUES ($1, $2::jsonb)
         ON CONFLICT (user_id) DO UPDATE SET data = EXCLUDED.data`,
        [toText(record.user_id), toJsonb(record)],
      );
    },
  };
}

export function providerTokensRepository(sql: Sql): ProviderTokensRepository {
  return {
    async get(userId) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.provider_tokens WHERE user_id = $1', [toText(userId)]);
      return recordOf<ProviderTokensRecord>(rows);
    },
    async put(record) {
      await sql.query(
        `INSERT INTO agent_platform.provider_tokens (user_id, data) VALUES ($1, $2::jsonb)
         ON CONFLICT (user_id) DO UPDATE SET data = EXCLUDED.data`,
        [toText(record.user_id), toJsonb(record)],
      );
    },
    async delete(userId) {
      await sql.query('DELETE FROM agent_platform.provider_tokens WHERE user_id = $1', [toText(userId)]);
    },
  };
}
