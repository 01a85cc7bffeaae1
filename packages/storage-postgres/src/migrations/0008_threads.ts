/**
 * Threads of thread automations: the code-host thread (an issue, a pull request) an automation
 * works in, with the conversation, branch and pull request its runs share.
 *
 * - `threads` is keyed by (org_id, automation_id, key), the record whole in `data`: the one
 *   lookup is by that whole key (a follow-up event finds its thread), so the primary key's index
 *   serves it and no other index is needed. `key` is `COLLATE "C"` like every other key, so it
 *   compares code unit by code unit whatever the database's locale.
 * - `updated_at` copies the record's, for an operator reading the table; nothing orders by it.
 * - No reference to the automation or to the run in `last_run_id`: the port checks neither (nor
 *   does the memory adapter), so a thread is written whatever else is stored.
 * @module
 */
import type { Migration } from './migration.js';

export const threadsMigration: Migration = {
  version: 8,
  name: 'threads',
  sql: /* sql */ `
CREATE TABLE agent_platform.threads (
  org_id text COLLATE "C" NOT NULL,
  automation_id text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  data jsonb NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, automation_id, key)
);
`,
};
