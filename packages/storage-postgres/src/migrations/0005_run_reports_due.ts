/**
 * Runs that owe their GitHub outcome comment: a worker killed between a run's final status and
 * its comment leaves `report.comment_due` true, and every executor's sweep asks for such runs
 * each minute. A partial index holds only final runs with the flag set (the few a crash left
 * owing), so the sweep reads exactly those and never the runs' history.
 * @module
 */
import type { Migration } from './migration.js';

export const runReportsDueMigration: Migration = {
  version: 5,
  name: 'run_reports_due',
  sql: /* sql */ `
CREATE INDEX runs_report_due
  ON agent_platform.runs (created_at, id)
  WHERE (data->'report'->>'comment_due') = 'true' AND status IN ('COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED');
`,
};
