/**
 * Threads: one row per (org, automation, key) in `threads`, the record whole in `data`. A put is
 * one upsert, so inserting and replacing are the same statement, with no read before it for a
 * concurrent put to slip past.
 * @module
 */
import type { ThreadRecord, ThreadsRepository } from '@agent-platform/core';
import { toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { recordOf, type DataRow } from './rows.js';

export function threadsRepository(sql: Sql): ThreadsRepository {
  return {
    async get(orgId, automationId, key) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.threads WHERE org_id = $1 AND automation_id = $2 AND key = $3', [
        toText(orgId),
        toText(automationId),
        toText(key),
      ]);
      return recordOf<ThreadRecord>(rows);
    },
    async put(record) {
      await sql.query(
        `INSERT INTO agent_platform.threads (org_id, automation_id, key, data, updated_at) VALUES ($1, $2, $3, $4::jsonb, $5)
         ON CONFLICT (org_id, automation_id, key) DO UPDATE SET data = EXCLUDED.data, updated_at = EXCLUDED.updated_at`,
        [toText(record.org_id), toText(record.automation_id), toText(record.key), toJsonb(record), record.updated_at],
      );
    },
  };
}
