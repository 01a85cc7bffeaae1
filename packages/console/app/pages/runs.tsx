/** Runs: an automation's runs, live, with cancel. One run is on its own page (run.tsx). */
import type { Run } from '@agent-platform/client';
import { Badge, ConfirmButton, ErrorNotice, Link, Muted, PageTitle, Time } from '../components.js';
import { LIVE_POLL_MS, useAction, useResource } from '../hooks.js';
import { navigate, segment } from '../router.js';
import { useClient, usePermissions } from '../session.js';
import { pageCaption, ResourceTable, type Column } from '../table.js';
import { heldReason, isFinal } from './run-status.js';

const COLUMNS: Column<Run>[] = [
  { header: 'Run', cell: (run) => <Link to={`runs/${segment(run.id)}`}>{run.id}</Link> },
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
  { header: 'Created', cell: (run) => <Time value={run.created_at} /> },
  { header: 'Finished', cell: (run) => <Time value={run.completed_at} /> },
  { header: 'Error', cell: (run) => run.error_detail ?? <Muted>none</Muted> },
];

export function RunsPage({ automationId }: { automationId: string | null }) {
  const client = useClient();
  const can = usePermissions();
  const automations = useResource((signal) => client.automations.list({ limit: 100 }, { signal }), []);
  const selected = automationId ?? automations.data?.automations[0]?.id ?? null;
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
      {automations.data && automations.data.automations.length > 0 && (
        <label class="inline">
          Automation
          <select
            value={selected ?? ''}
            onChange={(event) => navigate(`runs?automation=${encodeURIComponent((event.currentTarget as HTMLSelectElement).value)}`)}
          >
            {automations.data.automations.map((automation) => (
              <option key={automation.id} value={automation.id}>
                {automation.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {selected && <RunList key={selected} automationId={selected} />}
    </>
  );
}

function RunList({ automationId }: { automationId: string }) {
  const client = useClient();
  const can = usePermissions();
  const runs = useResource((signal) => client.automations.runs(automationId, { limit: 50 }, { signal }), [automationId], { pollMs: LIVE_POLL_MS });
  const cancel = useAction(async (runId: string) => {
    await client.automations.cancelRun(runId);
    runs.reload();
  });
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
  return (
    <>
      <ErrorNotice error={cancel.error} context="Cancelling failed" />
      <ResourceTable
        resource={runs}
        rowsOf={(data) => data.runs}
        rowKey={(run) => run.id}
        columns={can.write ? [...COLUMNS, actions] : COLUMNS}
        caption={(rows, data) => pageCaption(rows.length, data.total, 'runs, newest first (updated live)')}
        empty="No runs of this automation yet."
        errorContext="Loading the runs failed"
      />
    </>
  );
}
