/**
 * Outbound events and per-automation flow control.
 *
 * - `subscriptions`: an org's subscribers, listed oldest first; the fan-out's "enabled ones of an
 *   org" reads the org's few rows through the same index.
 * - `outbound_messages`: the messages sent to them, a queue of their own. `status` and
 *   `next_attempt_at` are columns, kept in step with `data` by every write, because the queue's
 *   claims find the due pending messages, soonest first, through a partial index that holds
 *   nothing else (delivered, failed and cancelled messages never get in a sender's way). The
 *   lease stays in `data`, read from the rows that index reaches. No foreign key to
 *   `subscriptions`: deleting a subscription deletes its messages in the same statement, and
 *   the memory adapter has no such rule for inserts either.
 * - A partial index over the live (PENDING or RUNNING) runs by automation and concurrency key,
 *   oldest first: `runs.listLive` reads it, and a claim checks through it that no run of a
 *   candidate's key is RUNNING, neither of them reading an automation's finished runs.
 * @module
 */
import type { Migration } from './migration.js';

export const outboundAndFlowControlMigration: Migration = {
  version: 3,
  name: 'outbound_and_flow_control',
  sql: /* sql */ `
CREATE TABLE agent_platform.subscriptions (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL,
  enabled boolean NOT NULL,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX subscriptions_by_org ON agent_platform.subscriptions (org_id, created_at, id);

CREATE TABLE agent_platform.outbound_messages (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL,
  subscription_id text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL,
  data jsonb NOT NULL
);
CREATE INDEX outbound_messages_by_subscription
  ON agent_platform.outbound_messages (org_id, subscription_id, created_at, id);
CREATE INDEX outbound_messages_due
  ON agent_platform.outbound_messages (next_attempt_at, id) WHERE status = 'pending';

CREATE INDEX runs_live_by_key
  ON agent_platform.runs (org_id, automation_id, (data->>'concurrency_key'), created_at, id)
  WHERE status IN ('PENDING', 'RUNNING');
`,
};
