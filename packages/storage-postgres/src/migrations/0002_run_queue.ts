/**
 * The run queue (`storage.runQueue`): a claim counts the RUNNING runs of every org, and recovery
 * looks through the RUNNING runs for lapsed leases. Both read only RUNNING rows, through this
 * partial index (an index-only scan grouped by org for the count). Claims take PENDING runs oldest
 * first through `runs_by_status`; `not_before` and the lease stay in `data`, read from the rows
 * those indexes reach.
 * @module
 */
import type { Migration } from './migration.js';

export const runQueueMigration: Migration = {
  version: 2,
  name: 'run_queue',
  sql: /* sql */ `
CREATE INDEX runs_running_by_org ON agent_platform.runs (org_id) WHERE status = 'RUNNING';
`,
};
