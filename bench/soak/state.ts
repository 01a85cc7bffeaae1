/**
 * What the database holds once the soak has settled, read straight from the cluster (not through
 * the proxy): runs, deliveries and outbound messages, as the checks need them; and each run's
 * transitions, as the database applied them.
 *
 * The runs' own `started_at` and `completed_at` are read from a process's clock before its
 * statement: a claim's `now` is taken before it waits for the claim lock, so a run it starts can
 * look as if it began a few milliseconds (during a partition, seconds) before the run whose end
 * freed its slot — although the claim counted after that end committed. The soak therefore
 * records the transitions itself, with a trigger of its own on `agent_platform.runs` (in its own
 * cluster; installed once the processes have migrated): each change of a run's status or lease
 * owner, timed by the database's clock as the statement applies it. A claim that counted a
 * completion as committed is applied after it, so these times order the two as the database did.
 * @module
 */
import type pg from 'pg';

const AUDIT = /* sql */ `
CREATE SCHEMA soak;
CREATE TABLE soak.run_transitions (
  seq bigserial PRIMARY KEY,
  run_id text NOT NULL,
  from_status text,
  to_status text NOT NULL,
  lease_owner text,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE FUNCTION soak.note_run_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO soak.run_transitions (run_id, from_status, to_status, lease_owner)
  VALUES (NEW.id, CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, NEW.status, NEW.data->>'lease_owner');
  RETURN NULL;
END $$;
CREATE TRIGGER soak_run_inserted AFTER INSERT ON agent_platform.runs FOR EACH ROW EXECUTE FUNCTION soak.note_run_transition();
CREATE TRIGGER soak_run_transition AFTER UPDATE ON agent_platform.runs FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.data->>'lease_owner' IS DISTINCT FROM NEW.data->>'lease_owner')
  EXECUTE FUNCTION soak.note_run_transition();
`;

/** Installs the soak's record of run transitions (after the platform's migrations). */
export async function installAudit(pool: pg.Pool): Promise<void> {
  await pool.query(AUDIT);
}

export interface Transition {
  from: string | null;
  to: string;
  leaseOwner: string | null;
  /** Milliseconds since the epoch (the database's clock). */
  at: number;
}

export interface RunRow {
  id: string;
  orgId: string;
  automationId: string;
  status: string;
  deliveryId: string | null;
  concurrencyKey: string | null;
  attempt: number;
  /** Milliseconds since the epoch. */
  startedAt: number | null;
  completedAt: number | null;
  errorDetail: string | null;
  /** Its transitions in the order applied (see the module's note). */
  transitions: Transition[];
}

export interface DeliveryRow {
  id: string;
  orgId: string;
  status: string;
  providerDeliveryId: string | null;
  runsCreated: string[];
}

export interface MessageRow {
  id: string;
  orgId: string;
  status: string;
  eventType: string;
  runId: string | null;
}

export interface DatabaseState {
  runs: RunRow[];
  deliveries: DeliveryRow[];
  messages: MessageRow[];
}

const time = (value: string | null | undefined) => (value ? Date.parse(value) : null);

export async function readState(pool: pg.Pool): Promise<DatabaseState> {
  const runs = await pool.query<{ id: string; org_id: string; automation_id: string; status: string; data: Record<string, any> }>(
    'SELECT id, org_id, automation_id, status, data FROM agent_platform.runs',
  );
  const deliveries = await pool.query<{ id: string; org_id: string; status: string; provider_id: string | null; runs_created: string[] | null }>(
    `SELECT id, org_id, status, data->>'provider_delivery_id' AS provider_id, data->'runs_created' AS runs_created FROM agent_platform.deliveries`,
  );
  const messages = await pool.query<{ id: string; org_id: string; status: string; event_type: string; run_id: string | null }>(
    `SELECT id, org_id, status, data->>'event_type' AS event_type, data->'payload'->'data'->>'id' AS run_id FROM agent_platform.outbound_messages`,
  );
  const transitions = await pool.query<{ run_id: string; from_status: string | null; to_status: string; lease_owner: string | null; at: number }>(
    // To the microsecond.
    'SELECT run_id, from_status, to_status, lease_owner, (extract(epoch FROM at) * 1000)::float8 AS at FROM soak.run_transitions ORDER BY seq',
  );
  const byRun = new Map<string, Transition[]>();
  for (const row of transitions.rows) {
    const list = byRun.get(row.run_id) ?? [];
    list.push({ from: row.from_status, to: row.to_status, leaseOwner: row.lease_owner, at: row.at });
    byRun.set(row.run_id, list);
  }
  return {
    runs: runs.rows.map((row) => ({
      id: row.id,
      orgId: row.org_id,
      automationId: row.automation_id,
      status: row.status,
      deliveryId: row.data.delivery_id ?? null,
      concurrencyKey: row.data.concurrency_key ?? null,
      attempt: row.data.attempt ?? 0,
      startedAt: time(row.data.started_at),
      completedAt: time(row.data.completed_at),
      errorDetail: row.data.error_detail ?? null,
      transitions: byRun.get(row.id) ?? [],
    })),
    deliveries: deliveries.rows.map((row) => ({
      id: row.id,
      orgId: row.org_id,
      status: row.status,
      providerDeliveryId: row.provider_id,
      runsCreated: row.runs_created ?? [],
    })),
    messages: messages.rows.map((row) => ({ id: row.id, orgId: row.org_id, status: row.status, eventType: row.event_type, runId: row.run_id })),
  };
}

/** Live work, for the settle wait: runs not final, messages still to send. */
export async function liveCounts(pool: pg.Pool): Promise<{ pending: number; running: number; messages: number }> {
  const runs = await pool.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM agent_platform.runs WHERE status IN ('PENDING', 'RUNNING') GROUP BY status`,
  );
  const messages = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM agent_platform.outbound_messages WHERE status = 'pending'`);
  const of = (status: string) => runs.rows.find((row) => row.status === status)?.n ?? 0;
  return { pending: of('PENDING'), running: of('RUNNING'), messages: messages.rows[0]?.n ?? 0 };
}
