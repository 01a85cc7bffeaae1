/**
 * The org's runs across its automations, newest first (`GET /api/automation/v1/runs`):
 * `runs_by_org` serves the list and its `since` bound, read backwards; `runs_by_org_status` the
 * same list narrowed to a status (the console's "failed runs"), so neither sorts the org's runs.
 * @module
 */
import type { Migration } from './migration.js';

export const runsByOrgMigration: Migration = {
  version: 12,
  name: 'runs_by_org',
  sql: /* sql */ `
CREATE INDEX runs_by_org ON agent_platform.runs (org_id, created_at, id);
CREATE INDEX runs_by_org_status ON agent_platform.runs (org_id, status, created_at, id);
`,
};
