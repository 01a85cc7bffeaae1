/**
 * The audit log: each org's entries, numbered and hash-chained per org.
 *
 * - `audit_entries` is keyed by (org_id, seq): the key that makes two appends of one org that
 *   read the same last entry collide, as a backstop to the advisory lock appends take. The entry
 *   is whole in `data`; `at`, `action`, `actor_id`, `target_type` and `target_id` copy its fields
 *   for the list's filters. Text columns are `COLLATE "C"` like every other key, so they compare
 *   code unit by code unit whatever the database's locale.
 * - The primary key serves a list by seq; `audit_entries_by_action` one filtered by action.
 *   Other filters scan the org's entries from the seq the list starts after.
 * @module
 */
import type { Migration } from './migration.js';

export const auditMigration: Migration = {
  version: 9,
  name: 'audit',
  sql: /* sql */ `
CREATE TABLE agent_platform.audit_entries (
  org_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  at timestamptz NOT NULL,
  action text COLLATE "C" NOT NULL,
  actor_id text COLLATE "C",
  target_type text COLLATE "C" NOT NULL,
  target_id text COLLATE "C",
  data jsonb NOT NULL,
  PRIMARY KEY (org_id, seq)
);
CREATE INDEX audit_entries_by_action ON agent_platform.audit_entries (org_id, action, seq);
`,
};
