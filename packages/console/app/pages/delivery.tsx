/** One delivery in full: its fields, each candidate automation's outcome, its payload, and replay. */
import type { DeliveryOutcome } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { Badge, ErrorNotice, Fields, Json, Link, Muted, PageTitle, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { describeOutcome } from '../outcomes.js';
import { segment } from '../router.js';
import { useClient, usePermissions } from '../session.js';
import { Table, type Column } from '../table.js';

const OUTCOME_COLUMNS: Column<DeliveryOutcome>[] = [
  { header: 'Automation', cell: (outcome) => <Link to={`automations/${segment(outcome.automation_id)}`}>{outcome.automation_name}</Link> },
  { header: 'Outcome', cell: (outcome) => describeOutcome(outcome.reason, outcome.error, outcome.detail) },
  { header: 'Run', cell: (outcome) => (outcome.run_id ? <Link to={`runs/${segment(outcome.run_id)}`}>{outcome.run_id}</Link> : <Muted>none</Muted>) },
];

interface Replayed {
  delivery_id?: string | undefined;
  matched: number;
  runs_created: string[];
}

export function DeliveryPage({ id }: { id: string }) {
  const client = useClient();
  const can = usePermissions();
  const delivery = useResource((signal) => client.deliveries.get(id, { signal }), [id]);
  const record = delivery.data;
  return (
    <>
      <PageTitle>Delivery {id}</PageTitle>
      <p>
        <Link to="deliveries">All deliveries</Link>
      </p>
      <ErrorNotice error={delivery.error} context="Loading the delivery failed" />
      {record && (
        <>
          <Fields
            rows={[
              ['Source', record.source],
              ['Event', record.event_key ? <code>{record.event_key}</code> : null],
              ['Status', <Badge value={record.status} />],
              ['Detail', record.detail],
              ['Received', <Time value={record.received_at} />],
              ["Sender's delivery id", record.provider_delivery_id],
              ['Replay of', record.replay_of ? <Link to={`deliveries/${segment(record.replay_of)}`}>{record.replay_of}</Link> : null],
            ]}
          />
          <section aria-labelledby="outcomes-title">
            <h2 id="outcomes-title">Automations</h2>
            {record.outcomes.length === 0 ? (
              <p>No automation on this source was a candidate.</p>
            ) : (
              <Table columns={OUTCOME_COLUMNS} rows={record.outcomes} rowKey={(outcome) => outcome.automation_id} striped={false} />
            )}
          </section>
          {can.write && <ReplaySection id={id} />}
          <section aria-labelledby="payload-title">
            <h2 id="payload-title">Payload</h2>
            <Json value={record.payload} label="Payload" />
          </section>
        </>
      )}
    </>
  );
}

/** Replay: for a member and above (a viewer's page has no such section). */
function ReplaySection({ id }: { id: string }) {
  const client = useClient();
  const replay = useAction(() => client.deliveries.replay(id));
  const [replayed, setReplayed] = useState<Replayed | null>(null);
  return (
    <section aria-labelledby="replay-title">
      <h2 id="replay-title">Replay</h2>
      <p>Match this event again against today's automations: a new delivery, and a new run for each automation that matches.</p>
      <button
        type="button"
        aria-busy={replay.busy ? 'true' : undefined}
        onClick={async () => {
          const result = await replay.run();
          if (result) setReplayed(result);
        }}
      >
        Replay delivery
      </button>
      <ErrorNotice error={replay.error} context="Replay failed" />
      {replayed && <ReplayNote replayed={replayed} />}
    </section>
  );
}

/** What a replay made: the new delivery, how many automations matched, and their runs. */
function ReplayNote({ replayed }: { replayed: Replayed }) {
  return (
    <StatusNote>
      Replayed
      {replayed.delivery_id && (
        <>
          {' '}
          as <Link to={`deliveries/${segment(replayed.delivery_id)}`}>delivery {replayed.delivery_id}</Link>
        </>
      )}
      : {replayed.matched} {replayed.matched === 1 ? 'automation' : 'automations'} matched
      {replayed.runs_created.map((runId) => (
        <>
          {', '}
          <Link key={runId} to={`runs/${segment(runId)}`}>
            run {runId}
          </Link>
        </>
      ))}
      .
    </StatusNote>
  );
}
