/** Runs: an automation's runs, live; one run with its conversation's events as they arrive, and cancel. */
import { FINAL_RUN_STATUSES, type Run } from '@agent-platform/client';
import { Badge, ConfirmButton, ErrorNotice, Fields, Link, Muted, PageTitle, StatusNote, Time } from '../components.js';
import { EventLog } from '../event-log.js';
import { useAction, useResource } from '../hooks.js';
import { navigate, segment } from '../router.js';
import { useClient } from '../session.js';
import { LIVE_POLL_MS } from './deliveries.js';

const isFinal = (run: Run) => FINAL_RUN_STATUSES.includes(run.status);

/** Why a PENDING run waits (queued behind a run with its concurrency key, debounced), if it says. */
const heldReason = (run: Run): string | null => (run.status === 'PENDING' && run.held_reason ? run.held_reason : null);

export function RunsPage({ automationId }: { automationId: string | null }) {
  const client = useClient();
  const automations = useResource((signal) => client.automations.list({ limit: 100 }, { signal }), []);
  const selected = automationId ?? automations.data?.automations[0]?.id ?? null;
  return (
    <>
      <PageTitle>Runs</PageTitle>
      <ErrorNotice error={automations.error} context="Loading the automations failed" />
      {automations.data && automations.data.automations.length === 0 && (
        <p>
          No automations yet: <Link to="automations/new">create one</Link>.
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
  const runs = useResource((signal) => client.automations.runs(automationId, { limit: 50 }, { signal }), [automationId], { pollMs: LIVE_POLL_MS });
  const cancel = useAction(async (runId: string) => {
    await client.automations.cancelRun(runId);
    runs.reload();
  });
  return (
    <>
      <ErrorNotice error={runs.error} context="Loading the runs failed" />
      <ErrorNotice error={cancel.error} context="Cancelling failed" />
      {runs.data &&
        (runs.data.runs.length === 0 ? (
          <p>No runs of this automation yet.</p>
        ) : (
          <div class="overflow-auto">
            <table class="striped">
              <caption>
                {runs.data.runs.length} of {runs.data.total} runs, newest first (updated live)
              </caption>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Created</th>
                  <th scope="col">Finished</th>
                  <th scope="col">Error</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {runs.data.runs.map((run) => (
                  <tr key={run.id}>
                    <td>
                      <Link to={`runs/${segment(run.id)}`}>{run.id}</Link>
                    </td>
                    <td>
                      <Badge value={run.status} />
                      {heldReason(run) && <small class="detail">{heldReason(run)}</small>}
                    </td>
                    <td>
                      {run.event_key ? <code>{run.event_key}</code> : run.trigger}
                      {run.concurrency_key != null && (
                        <small class="detail">
                          key <code>{run.concurrency_key}</code>
                        </small>
                      )}
                    </td>
                    <td>
                      <Time value={run.created_at} />
                    </td>
                    <td>
                      <Time value={run.completed_at} />
                    </td>
                    <td>{run.error_detail ?? <Muted>none</Muted>}</td>
                    <td>
                      {!isFinal(run) && (
                        <ConfirmButton
                          label="Cancel"
                          hidden={`run ${run.id}`}
                          question={`Cancel run ${run.id}?`}
                          confirm="Cancel run"
                          onConfirm={() => void cancel.run(run.id)}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </>
  );
}

export function RunPage({ id }: { id: string }) {
  const client = useClient();
  const run = useResource((signal) => client.automations.getRun(id, { signal }), [id], { pollMs: LIVE_POLL_MS });
  const cancel = useAction(async () => {
    await client.automations.cancelRun(id);
    run.reload();
    return true;
  });
  const record = run.data;
  return (
    <>
      <PageTitle>Run {id}</PageTitle>
      <ErrorNotice error={run.error} context="Loading the run failed" />
      {record && (
        <>
          <p>
            <Link to={`runs?automation=${encodeURIComponent(record.automation_id)}`}>Runs of this automation</Link>
          </p>
          <Fields
            rows={[
              ['Status', <Badge value={record.status} />],
              ['Automation', <Link to={`automations/${segment(record.automation_id)}`}>{record.automation_id}</Link>],
              ['Trigger', record.event_key ? <code>{record.event_key}</code> : record.trigger],
              ...(heldReason(record) ? ([['Waiting because', heldReason(record)]] as [string, string][]) : []),
              ['Concurrency key', record.concurrency_key != null ? <code>{record.concurrency_key}</code> : null],
              ['Delivery', record.delivery_id ? <Link to={`deliveries/${segment(record.delivery_id)}`}>{record.delivery_id}</Link> : null],
              ['Attempt', String(record.attempt)],
              ['Created', <Time value={record.created_at} />],
              ['Started', <Time value={record.started_at} />],
              ['Finished', <Time value={record.completed_at} />],
              ['Error', record.error_detail],
              ['Sandbox', record.sandbox_id],
              ['Conversation', record.conversation_id ? <Link to={`conversations/${segment(record.conversation_id)}`}>{record.conversation_id}</Link> : null],
            ]}
          />
          {!isFinal(record) && (
            <div class="actions">
              <ConfirmButton
                label="Cancel run"
                question="Cancel this run? The agent is stopped."
                confirm="Cancel run"
                class="contrast outline"
                busy={cancel.busy}
                onConfirm={() => void cancel.run()}
              />
            </div>
          )}
          <ErrorNotice error={cancel.error} context="Cancelling failed" />
          {record.status === 'CANCELLED' && <StatusNote>The run is cancelled.</StatusNote>}
          {record.conversation_id ? (
            <EventLog conversationId={record.conversation_id} />
          ) : (
            <p class="muted">{isFinal(record) ? 'This run had no conversation.' : 'The conversation starts with the run.'}</p>
          )}
        </>
      )}
    </>
  );
}
