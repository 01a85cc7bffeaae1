/**
 * Console sign-in (OpenID Connect): org memberships and console sessions.
 *
 * - `memberships` is keyed by (org_id, user_id), the record whole in `data`; `role` copies the
 *   record's for an operator reading the table, `created_at` for `memberships_by_org`, which
 *   serves the members list (an org's memberships, oldest first) without a sort. A first sign-in
 *   inserts with `ON CONFLICT DO NOTHING`, so of concurrent first sign-ins one row is made and
 *   the others read it.
 * - `console_sessions` is keyed by `id_hash`, the SHA-256 of the session id — never the id
 *   itself, so a copy of the table signs nobody in. `console_sessions_by_expiry` serves the sweep
 *   that deletes expired sessions a few at a time.
 * - Text columns are `COLLATE "C"` like every other key, so they compare code unit by code unit
 *   whatever the database's locale.
 * @module
 */
import type { Migration } from './migration.js';

export const consoleSignInMigration: Migration = {
  version: 11,
  name: 'console_sign_in',
  sql: /* sql */ `
CREATE TABLE agent_platform.memberships (
  org_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  role text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_by_org ON agent_platform.memberships (org_id, created_at, user_id);
CREATE TABLE agent_platform.console_sessions (
  id_hash text COLLATE "C" PRIMARY KEY,
  expires_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX console_sessions_by_expiry ON agent_platform.console_sessions (expires_at);
`,
};
