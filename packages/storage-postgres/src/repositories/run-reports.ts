/**
 * Run reports: one row per run in `run_reports`, keyed by (org_id, run_id), written by one
 * upsert that takes the run's org and creation time from the run itself (so a missing run, or
 * another org's, writes nothing). The reports owing their outcome comment are read through the
 * partial index `run_reports_due`, oldest run first, each joined to its run.
 * @module
 */
import type { RunRecord, RunReport, RunReportsRepository } from '@agent-platform/core';
import { FINAL_RUN_STATUSES } from '@agent-platform/core';
import { fromJsonb, fromText, toJsonb, toText } from '../sql/json.js';
import type { Sql } from '../sql/sql.js';
import { recordOf, type DataRow } from './rows.js';

/**
 * Owed reports of final runs, oldest run first: spelled as the partial index `run_reports_due` is
 * (its flag, its order), so the planner reads only the reports that owe their comment, and looks
 * up each one's run by its key, leaving out a run still running. The lateral `LIMIT 1` keeps that
 * lookup per report: joined freely, the planner may instead read every final run of the history.
 */
export const LIST_RUN_REPORTS_DUE = `SELECT r.data::text AS run, p.data::text AS report
   FROM agent_platform.run_reports p
   CROSS JOIN LATERAL (
     SELECT data FROM agent_platform.runs
     WHERE id = p.run_id AND org_id = p.org_id AND status IN (${FINAL_RUN_STATUSES.map((status) => `'${status}'`).join(', ')})
     LIMIT 1
   ) r
   WHERE p.comment_due
   ORDER BY p.run_created_at, p.run_id LIMIT $1`;

export function runReportsRepository(sql: Sql): RunReportsRepository {
  return {
    async get(orgId, runId) {
      const { rows } = await sql.query<DataRow>('SELECT data::text AS data FROM agent_platform.run_reports WHERE org_id = $1 AND run_id = $2', [
        toText(orgId),
        toText(runId),
      ]);
      return recordOf<RunReport>(rows);
    },
    async getMany(orgId, runIds) {
      const found = new Map<string, RunReport>();
      if (runIds.length === 0) return found;
      const { rows } = await sql.query<{ run_id: string; data: string }>(
        'SELECT run_id, data::text AS data FROM agent_platform.run_reports WHERE org_id = $1 AND run_id = ANY($2::text[])',
        [toText(orgId), runIds.map(toText)],
      );
      for (const row of rows) found.set(fromText(row.run_id), fromJsonb<RunReport>(row.data));
      return found;
    },
    async put(orgId, runId, report) {
      const { rowCount } = await sql.query(
        `INSERT INTO agent_platform.run_reports (org_id, run_id, run_created_at, comment_due, data)
         SELECT org_id, id, created_at, $3, $4::jsonb FROM agent_platform.runs WHERE id = $2 AND org_id = $1
         ON CONFLICT (org_id, run_id) DO UPDATE SET comment_due = EXCLUDED.comment_due, data = EXCLUDED.data`,
        [toText(orgId), toText(runId), report.comment_due === true, toJsonb(report)],
      );
      return rowCount > 0;
    },
    async listDue(limit) {
      const { rows } = await sql.query<{ run: string; report: string }>(LIST_RUN_REPORTS_DUE, [Math.max(0, Math.floor(limit))]);
      return rows.map((row) => ({ run: fromJsonb<RunRecord>(row.run), report: fromJsonb<RunReport>(row.report) }));
    },
  };
}
