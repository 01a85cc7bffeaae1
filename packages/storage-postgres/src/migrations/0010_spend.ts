/**
 * Spend control: the spend ledger and the budgets that cap it.
 *
 * - `spend` holds one row per (org, day, user, automation, model), only ever added to by
 *   `INSERT … ON CONFLICT DO UPDATE SET cost_usd = cost_usd + …` (an atomic increment: adds from
 *   many processes all count). `automation_id` is `''` for spend outside automations (API
 *   conversations): a primary key column cannot be null, and an automation id is never empty.
 *   The key leads with (org_id, day), so a budget's sum over a period and the usage report over
 *   a range of days read only that org's rows of those days.
 * - `spend_totals` holds each subject's running total per UTC day and month — (org_id, scope,
 *   subject, period, start), `subject` `''` for the org — added to by the same statement that adds
 *   to the ledger, so a budget check reads one row by its key whatever the period's traffic.
 * - `budgets` holds each org's budgets, the record whole in `data`; (org_id, scope, period,
 *   subject) is unique, so a put into a taken slot updates that budget in one statement.
 * @module
 */
import type { Migration } from './migration.js';

export const spendMigration: Migration = {
  version: 10,
  name: 'spend',
  sql: /* sql */ `
CREATE TABLE agent_platform.spend (
  org_id text COLLATE "C" NOT NULL,
  day date NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  automation_id text COLLATE "C" NOT NULL,
  model text COLLATE "C" NOT NULL,
  cost_usd double precision NOT NULL,
  prompt_tokens bigint NOT NULL,
  completion_tokens bigint NOT NULL,
  llm_calls bigint NOT NULL,
  PRIMARY KEY (org_id, day, user_id, automation_id, model)
);
CREATE TABLE agent_platform.spend_totals (
  org_id text COLLATE "C" NOT NULL,
  scope text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  period text COLLATE "C" NOT NULL,
  start date NOT NULL,
  cost_usd double precision NOT NULL,
  PRIMARY KEY (org_id, scope, subject, period, start)
);
CREATE TABLE agent_platform.budgets (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL,
  scope text COLLATE "C" NOT NULL,
  period text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL,
  UNIQUE (org_id, scope, period, subject)
);
CREATE INDEX budgets_by_org ON agent_platform.budgets (org_id, created_at, id);
`,
};
