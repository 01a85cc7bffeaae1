/** The delivery log, live: each verified inbound event with every candidate automation's outcome. One delivery is on its own page (delivery.tsx). */
import { DELIVERY_STATUSES, type DeliveryOutcome, type DeliveryStatus, type DeliverySummary } from '@agent-platform/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Badge, Hidden, Link, Muted, PageTitle, Time } from '../components.js';
import { Options } from '../forms.js';
import { LIVE_POLL_MS, useResource } from '../hooks.js';
import { describeOutcome } from '../outcomes.js';
import { segment } from '../router.js';
import { useClient } from '../session.js';
import { pageCaption, ResourceTable, type Column } from '../table.js';

const COLUMNS: Column<DeliverySummary>[] = [
  {
    header: 'Received',
    cell: (delivery) => (
      <Link to={`deliveries/${segment(delivery.id)}`}>
        <Time value={delivery.received_at} />
        <Hidden> delivery {delivery.id}</Hidden>
      </Link>
    ),
  },
  { header: 'Source', cell: (delivery) => delivery.source },
  { header: 'Event', cell: (delivery) => (delivery.event_key ? <code>{delivery.event_key}</code> : <Muted>none</Muted>) },
  {
    header: 'Status',
    cell: (delivery) => (
      <>
        <Badge value={delivery.status} />
        {delivery.detail && <small class="detail">{delivery.detail}</small>}
      </>
    ),
  },
  { header: 'Automations', cell: (delivery) => <Outcomes outcomes={delivery.outcomes} /> },
];

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
              <Options values={DELIVERY_STATUSES} />
            </select>
          </label>
        </form>
      </search>
      <ResourceTable
        resource={deliveries}
        rowsOf={(data) => data.deliveries}
        rowKey={(delivery) => delivery.id}
        columns={COLUMNS}
        caption={(rows, data) => pageCaption(rows.length, data.total, 'deliveries, newest first')}
        empty="No deliveries yet. Send an event to a registered webhook's URL and it appears here."
        errorContext="Loading the deliveries failed"
        loading="Loading deliveries…"
      />
    </>
  );
}

function Outcomes({ outcomes }: { outcomes: DeliveryOutcome[] }) {
  if (outcomes.length === 0) return <Muted>no automation on this source</Muted>;
  return (
    <ul class="outcomes">
      {outcomes.map((outcome) => (
        <li key={outcome.automation_id} class={outcome.matched ? 'matched' : 'not-matched'}>
          <Link to={`automations/${segment(outcome.automation_id)}`}>{outcome.automation_name}</Link>:{' '}
          {describeOutcome(outcome.reason, outcome.error, outcome.detail)}
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
