/**
 * The first schema. Every table keeps the whole record as `jsonb` in `data`, plus the columns its
 * lookups filter and sort on, each lookup served by an index that reaches only the rows it
 * returns (one org, one user, one status). Ids and other keys use `COLLATE "C"`, so ties sort in
 * code-unit order whatever the database's locale, as the memory adapter sorts them.
 * @module
 */
import type { Migration } from './migration.js';

export const initialMigration: Migration = {
  version: 1,
  name: 'initial',
  sql: /* sql */ `
CREATE TABLE agent_platform.settings (
  user_id text COLLATE "C" PRIMARY KEY,
  data jsonb NOT NULL
);

CREATE TABLE agent_platform.provider_tokens (
  user_id text COLLATE "C" PRIMARY KEY,
  data jsonb NOT NULL
);

CREATE TABLE agent_platform.api_keys (
  id text COLLATE "C" PRIMARY KEY,
  key_hash text COLLATE "C" NOT NULL CONSTRAINT api_keys_key_hash_key UNIQUE,
  user_id text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX api_keys_by_user ON agent_platform.api_keys (user_id, created_at, id);

CREATE TABLE agent_platform.webhooks (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL,
  source text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL,
  CONSTRAINT webhooks_org_source_key UNIQUE (org_id, source)
);
CREATE INDEX webhooks_by_org ON agent_platform.webhooks (org_id, created_at, id);

CREATE TABLE agent_platform.automations (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL,
  -- trigger.source
  source text COLLATE "C" NOT NULL,
  enabled boolean NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX automations_by_org ON agent_platform.automations (org_id, created_at, id);
-- Ingest asks for the enabled automations of one (org, source) on every delivery.
CREATE INDEX automations_enabled_by_source ON agent_platform.automations (org_id, source, id) WHERE enabled;

CREATE TABLE agent_platform.runs (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL,
  automation_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX runs_by_automation ON agent_platform.runs (org_id, automation_id, created_at, id);
-- The executor polls one status across orgs; finished runs never get in its way.
CREATE INDEX runs_by_status ON agent_platform.runs (status, created_at, id);

CREATE TABLE agent_platform.deliveries (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL,
  source text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  received_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX deliveries_by_org ON agent_platform.deliveries (org_id, received_at, id);
CREATE INDEX deliveries_by_org_source ON agent_platform.deliveries (org_id, source, received_at, id);
CREATE INDEX deliveries_by_org_status ON agent_platform.deliveries (org_id, status, received_at, id);

-- Apart from deliveries: a claim outlives nothing but its own expiry.
CREATE TABLE agent_platform.dedup_claims (
  org_id text COLLATE "C" NOT NULL,
  source text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  delivery_id text COLLATE "C" NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, source, key)
);
CREATE INDEX dedup_claims_by_expiry ON agent_platform.dedup_claims (expires_at);

CREATE TABLE agent_platform.github_links (
  kind text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  org_id text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (kind, key, org_id)
);
CREATE INDEX github_links_by_org ON agent_platform.github_links (org_id, created_at, kind, key);

CREATE TABLE agent_platform.sandboxes (
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX sandboxes_by_user ON agent_platform.sandboxes (user_id, created_at, id);

CREATE TABLE agent_platform.conversations (
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  -- The seq of the next event appended: taken with UPDATE ... RETURNING, whose row lock makes
  -- concurrent appends queue, so they never share or skip a seq.
  next_seq integer NOT NULL DEFAULT 0,
  data jsonb NOT NULL
);
CREATE INDEX conversations_by_user ON agent_platform.conversations (user_id, created_at, id);

CREATE TABLE agent_platform.conversation_events (
  conversation_id text COLLATE "C" NOT NULL REFERENCES agent_platform.conversations (id) ON DELETE CASCADE,
  seq integer NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (conversation_id, seq)
);

CREATE TABLE agent_platform.start_tasks (
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX start_tasks_by_user ON agent_platform.start_tasks (user_id, created_at, id);
`,
};
