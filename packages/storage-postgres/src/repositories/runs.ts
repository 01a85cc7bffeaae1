/**
 * Runs: inserted in batches (all or nothing), listed per automation newest first, and polled by
 * status across orgs, oldest first, through an index on (status, created_at, id).
 * @module
 */
import type { RunRecord, RunsRepository } from '@agent-platform/core';
import { StorageConflictError } from '@agent-platform/core';
import { isUniqueViolation } from '../errors.js';
import { toJsonb } from '../json.js';
import type { Sql } from '../sql.js';
import { limitOffset, offsetPage, recordOf, recordsOf, type DataRow } from './rows.js';

export function runsRepository(sql: Sql): RunsRepository {
  return {
    async insertMany(records) {
      if (records.length === 0) return;
      // One statement, so a taken id (in the table or twice in the batch) inserts none of them;
      // guarded, so inside a transaction the failure does not abort it.
      try {
        await sql.guardedQuery(
          `INSERT INTO agent_platform.runs (id, org_id, automation_id, status, created_at, data)
           SELECT r.value->>'id', r.value->>'org_id', r.value->>'automation_id', r.value->>'status',
                  (r.value->>'created_at')::timestamptz, r.value
           FROM jsonb_array_elements($1::jsonb) AS r(value)`,
          [toJsonb(records)],
        );
      } catch (error) {
        if (isUniqueViolation(error) || error instanceof StorageConflictError) {
          throw new StorageConflictError('A run with one of these ids already exists');
        }
        throw error;
      }
    },
    async get(orgId, id) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.runs WHERE id = $1 AND org_id = $2', [id, orgId]);
      return recordOf<RunRecord>(rows);
    },
    async listByAutomation(orgId, automationId, options) {
      return offsetPage<RunRecord>(
        sql,
        `SELECT (SELECT count(*) FROM agent_platform.runs WHERE org_id = $1 AND automation_id = $2)::int AS total,
                array(SELECT data::text FROM agent_platform.runs WHERE org_id = $1 AND automation_id = $2
                      ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4) AS items`,
        [orgId, automationId, ...limitOffset(options)],
      );
    },
    async listByStatus(status, limit) {
      const { rows } = await sql.query<DataRow>(
        'SELECT data::text AS data FROM agent_platform.runs WHERE status = $1 ORDER BY created_at, id LIMIT $2',
        [status, Math.max(0, Math.floor(limit))],
      );
      return recordsOf<RunRecord>(rows);
    },
    async update(record) {
      const { rowCount } = await sql.query(
        `UPDATE agent_platform.runs SET automation_id = $3, status = $4, created_at = $5, data = $6::jsonb
         WHERE id = $1 AND org_id = $2`,
        [record.id, record.org_id, record.automation_id, record.status, record.created_at, toJsonb(record)],
      );
      return rowCount > 0;
    },
  };
}
