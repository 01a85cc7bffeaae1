/**
 * Runs: the org's runs across its automations, newest first and live, narrowed by automation,
 * status and age (kept in the address, so a filtered list is a link), a page at a time, with
 * cancel. One run is on its own page (run.tsx).
 */
import { RUN_STATUSES, type Run } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { Badge, ConfirmButton, ErrorNotice, Link, Muted, PageTitle, Time } from '../components.js';
import { LIVE_POLL_MS, useAction, useResource } from '../hooks.js';
import { navigate, segment } from '../router.js';
import { useClient, usePermissions } from '../session.js';
import { runStatus, useStatusSound } from '../status-sound.js';
import { ResourceTable, type Column } from '../table.js';
import { heldReason, isFinal } from './run-status.js';

/** The ages the list can be narrowed to, as the `since` the API takes. */
const AGES = [
  { value: '', label: 'Any time', ms: 0 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

const PAGE_SIZE = 50;

export interface RunFilters {
  automation: string | null;
  status: string | null;
  age: string | null;
}

/** The Runs page's address for `filters` (empty ones left out). */
export function runsPath(filters: RunFilters): string {
  const query = new URLSearchParams();
  if (filters.automation) query.set('automation', filters.automation);
  if (filters.status) query.set('status', filters.status);
  if (filters.age) query.set('age', filters.age);
  const text = query.toString();
  return text ? `runs?${text}` : 'runs';
}

export function RunsPage(filters: RunFilters) {
  const client = useClient();
  const can = usePermissions();
  const automations = useResource((signal) => client.automations.list({ limit: 100 }, { signal }), []);
  const names = new Map((automations.data?.automations ?? []).map((automation) => [automation.id, automation.name]));
  const change = (member: keyof RunFilters) => (event: Event) =>
    navigate(runsPath({ ...filters, [member]: (event.currentTarget as HTMLSelectElement).value || null }));
  return (
    <>
      <PageTitle>Runs</PageTitle>
      <ErrorNotice error={automations.error} context="Loading the automations failed" />
      {automations.data && automations.data.automations.length === 0 && (
        <p>
          No automations yet
          {can.write && (
            <>
              : <Link to="automations/new">create one</Link>
            </>
          )}
          .
        </p>
      )}
      <search aria-label="Filter runs">
        <form class="filters" onSubmit={(event) => event.preventDefault()}>
          <label>
            Automation
            <select value={filters.automation ?? ''} onChange={change('automation')}>
              <option value="">All automations</option>
              {automations.data?.automations.map((automation) => (
                <option key={automation.id} value={automation.id}>
                  {automation.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select value={filters.status ?? ''} onChange={change('status')}>
              <option value="">Any status</option>
              <option value="PENDING,RUNNING">Live (pending or running)</option>
              {RUN_STATUSES.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          </label>
          <label>
            Created
            <select value={filters.age ?? ''} onChange={change('age')}>
              {AGES.map((age) => (
                <option key={age.value} value={age.value}>
                  {age.label}
                </option>
              ))}
            </select>
          </label>
        </form>
      </search>
      <RunList key={runsPath(filters)} filters={filters} names={names} />
    </>
  );
}

function RunList({ filters, names }: { filters: RunFilters; names: ReadonlyMap<string, string> }) {
  const client = useClient();
  const can = usePermissions();
  // The page ids of the pages before this one: "Newer runs" goes back one.
  const [pages, setPages] = useState<string[]>([]);
  const pageId = pages.at(-1);
  const ms = AGES.find((age) => age.value === filters.age)?.ms ?? 0;
  const runs = useResource(
    (signal) =>
      client.automations.allRuns(
        {
          limit: PAGE_SIZE,
          ...(pageId ? { page_id: pageId } : {}),
          ...(filters.automation ? { automation_id: filters.automation } : {}),
          ...(filters.status ? { status: filters.status } : {}),
          ...(ms ? { since: new Date(Date.now() - ms).toISOString() } : {}),
        },
        { signal },
      ),
    [pageId],
    // The first page is live; an older page stays as it was read.
    { pollMs: pageId ? 0 : LIVE_POLL_MS },
  );
  useStatusSound('run', runs.data?.items.map(runStatus));
  const cancel = useAction(async (runId: string) => {
    await client.automations.cancelRun(runId);
    runs.reload();
  });
  const columns: Column<Run>[] = [
    { header: 'Run', cell: (run) => <Link to={`runs/${segment(run.id)}`}>{run.id}</Link> },
    {
      header: 'Automation',
      cell: (run) => <Link to={`automations/${segment(run.automation_id)}`}>{names.get(run.automation_id) ?? run.automation_id}</Link>,
    },
    {
      header: 'Status',
      cell: (run) => (
        <>
          <Badge value={run.status} />
          {heldReason(run) && <small class="detail">{heldReason(run)}</small>}
        </>
      ),
    },
    {
      header: 'Trigger',
      cell: (run) => (
        <>
          {run.event_key ? <code>{run.event_key}</code> : run.trigger}
          {run.concurrency_key != null && (
            <small class="detail">
              key <code>{run.concurrency_key}</code>
            </small>
          )}
        </>
      ),
    },
    {
      header: 'Created',
      cell: (run) => (
        <>
          <Time value={run.created_at} />
          {run.completed_at && (
            <small class="detail">
              finished <Time value={run.completed_at} />
            </small>
          )}
        </>
      ),
    },
    { header: 'Error', cell: (run) => run.error_detail ?? <Muted>none</Muted> },
  ];
  const actions: Column<Run> = {
    header: 'Actions',
    cell: (run) =>
      !isFinal(run) && (
        <ConfirmButton
          label="Cancel"
          hidden={`run ${run.id}`}
          question={`Cancel run ${run.id}?`}
          confirm="Cancel run"
          onConfirm={() => void cancel.run(run.id)}
        />
      ),
  };
  const filtered = Boolean(filters.automation || filters.status || filters.age);
  return (
    <>
      <ErrorNotice error={cancel.error} context="Cancelling failed" />
      <ResourceTable
        resource={runs}
        rowsOf={(data) => data.items}
        rowKey={(run) => run.id}
        class="runs"
        columns={can.write ? [...columns, actions] : columns}
        caption={(rows) => `${rows.length} runs, newest first${pageId ? '' : ' (updated live)'}`}
        empty={filtered ? 'No runs match these filters.' : 'No runs yet.'}
        errorContext="Loading the runs failed"
      />
      <nav class="pager" aria-label="Pages of runs">
        {pages.length > 0 && (
          <button type="button" class="secondary" onClick={() => setPages(pages.slice(0, -1))}>
            Newer runs
          </button>
        )}
        {runs.data?.next_page_id && (
          <button type="button" class="secondary" onClick={() => setPages([...pages, runs.data?.next_page_id as string])}>
            Older runs
          </button>
        )}
      </nav>
    </>
  );
}
