/**
 * A run's GitHub report leaves the run for a table of its own: it is the answer-back feature's
 * record, written after the run's final status and read beside it, so reporting never rewrites a
 * run's row and the runs table carries nothing of the feature.
 *
 * - `run_reports` is keyed by (org_id, run_id), the report whole in `data`; `comment_due` mirrors
 *   its flag (a missing one is false) and `run_created_at` copies the run's creation time, which
 *   never changes, so the reports still owing their outcome comment are read oldest run first
 *   straight from a partial index holding only them: the sweep every minute never reads a report
 *   that owes nothing, and joins each one's run for the final-status check.
 * - The reference to the run keeps a report from outliving it: runs are not deleted today, and
 *   if they ever are, their reports go with them.
 * - Every existing `report` member of a run moves over, then leaves the run's `data`; the 0005
 *   partial index over it goes too.
 * @module
 */
import type { Migration } from './migration.js';

export const runReportsMigration: Migration = {
  version: 7,
  name: 'run_reports',
  sql: /* sql */ `
CREATE TABLE agent_platform.run_reports (
  org_id text COLLATE "C" NOT NULL,
  run_id text COLLATE "C" NOT NULL REFERENCES agent_platform.runs (id) ON DELETE CASCADE,
  run_created_at timestamptz NOT NULL,
  comment_due boolean NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (org_id, run_id)
);
CREATE INDEX run_reports_due ON agent_platform.run_reports (run_created_at, run_id) WHERE comment_due;

INSERT INTO agent_platform.run_reports (org_id, run_id, run_created_at, comment_due, data)
  SELECT org_id, id, created_at, coalesce((data->'report'->>'comment_due') = 'true', false), data->'report'
  FROM agent_platform.runs
  WHERE jsonb_typeof(data->'report') = 'object';
UPDATE agent_platform.runs SET data = data - 'report' WHERE data ? 'report';
DROP INDEX agent_platform.runs_report_due;
`,
};
