/** The delivery log, live: each verified inbound event with every candidate automation's outcome; one delivery in full, and replay. */
import type { DeliveryOutcome, DeliveryStatus, DeliverySummary } from '@agent-platform/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Badge, ErrorNotice, Fields, Hidden, Json, Link, Muted, PageTitle, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { describeOutcome } from '../outcomes.js';
import { segment } from '../router.js';
import { useClient } from '../session.js';

/** How often the live list asks for new deliveries: the API has no live stream of deliveries. */
export const LIVE_POLL_MS = 2_000;

const STATUSES: DeliveryStatus[] = ['matched', 'unmatched', 'duplicate', 'ignored'];

export function DeliveriesPage() {
  const client = useClient();
  const [source, setSource] = useState('');
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const seen = useRef<Set<string> | null>(null);
  const [announcement, setAnnouncement] = useState('');
  // Announce only deliveries that arrive, not those a changed filter brings into view.
  useEffect(() => {
    seen.current = null;
  }, [source, status]);
  const deliveries = useResource(
    async (signal) => {
      const page = await client.deliveries.list({ limit: 50, ...(source ? { source } : {}), ...(status ? { status } : {}) }, { signal });
      const ids = new Set(page.deliveries.map((delivery) => delivery.id));
      const previous = seen.current;
      if (previous) {
        const added = page.deliveries.filter((delivery) => !previous.has(delivery.id)).length;
        if (added > 0) setAnnouncement(`${added} new ${added === 1 ? 'delivery' : 'deliveries'}`);
      }
      seen.current = ids;
      return page;
    },
    [source, status],
    { pollMs: LIVE_POLL_MS },
  );
  return (
    <>
      <PageTitle>Deliveries</PageTitle>
      <p>
        Every verified inbound event, newest first, with each candidate automation's outcome. The list updates live.
        <span role="status" class="visually-hidden">
          {announcement}
        </span>
      </p>
      <search aria-label="Filter deliveries">
        <form class="filters" onSubmit={(event) => event.preventDefault()}>
          <label>
            Source
            <input
              type="search"
              value={source}
              placeholder="every source"
              onInput={(event) => setSource((event.currentTarget as HTMLInputElement).value.trim())}
            />
          </label>
          <label>
            Status
            <select value={status} onChange={(event) => setStatus((event.currentTarget as HTMLSelectElement).value as DeliveryStatus | '')}>
              <option value="">every status</option>
              {STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
        </form>
      </search>
      <ErrorNotice error={deliveries.error} context="Loading the deliveries failed" />
      {deliveries.data && <DeliveryTable deliveries={deliveries.data.deliveries} total={deliveries.data.total} />}
      {!deliveries.data && deliveries.loading && <p aria-busy="true">Loading deliveries…</p>}
    </>
  );
}

function DeliveryTable({ deliveries, total }: { deliveries: DeliverySummary[]; total: number }) {
  if (deliveries.length === 0) return <p>No deliveries yet. Send an event to a registered webhook's URL and it appears here.</p>;
  return (
    <div class="overflow-auto">
      <table class="striped">
        <caption>
          {deliveries.length} of {total} deliveries, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Received</th>
            <th scope="col">Source</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Automations</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id}>
              <td>
                <Link to={`deliveries/${segment(delivery.id)}`}>
                  <Time value={delivery.received_at} />
                  <Hidden> delivery {delivery.id}</Hidden>
                </Link>
              </td>
              <td>{delivery.source}</td>
              <td>{delivery.event_key ? <code>{delivery.event_key}</code> : <Muted>none</Muted>}</td>
              <td>
                <Badge value={delivery.status} />
                {delivery.detail && <small class="detail">{delivery.detail}</small>}
              </td>
              <td>
                <Outcomes outcomes={delivery.outcomes} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Outcomes({ outcomes }: { outcomes: DeliveryOutcome[] }) {
  if (outcomes.length === 0) return <Muted>no automation on this source</Muted>;
  return (
    <ul class="outcomes">
      {outcomes.map((outcome) => (
        <li key={outcome.automation_id} class={outcome.matched ? 'matched' : 'not-matched'}>
          <Link to={`automations/${segment(outcome.automation_id)}`}>{outcome.automation_name}</Link>: {describeOutcome(outcome.reason, outcome.error)}
          {outcome.run_id && (
            <>
              {' '}
              (<Link to={`runs/${segment(outcome.run_id)}`}>run {outcome.run_id}</Link>)
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

export function DeliveryPage({ id }: { id: string }) {
  const client = useClient();
  const delivery = useResource((signal) => client.deliveries.get(id, { signal }), [id]);
  const replay = useAction(() => client.deliveries.replay(id));
  const [replayed, setReplayed] = useState<{ delivery_id?: string | undefined; matched: number; runs_created: string[] } | null>(null);
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
              <table>
                <thead>
                  <tr>
                    <th scope="col">Automation</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Run</th>
                  </tr>
                </thead>
                <tbody>
                  {record.outcomes.map((outcome) => (
                    <tr key={outcome.automation_id}>
                      <td>
                        <Link to={`automations/${segment(outcome.automation_id)}`}>{outcome.automation_name}</Link>
                      </td>
                      <td>{describeOutcome(outcome.reason, outcome.error)}</td>
                      <td>{outcome.run_id ? <Link to={`runs/${segment(outcome.run_id)}`}>{outcome.run_id}</Link> : <Muted>none</Muted>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
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
            {replayed && (
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
            )}
          </section>
          <section aria-labelledby="payload-title">
            <h2 id="payload-title">Payload</h2>
            <Json value={record.payload} label="Payload" />
          </section>
        </>
      )}
    </>
  );
}
