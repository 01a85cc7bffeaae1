/** One run: its fields, its automation by name, its conversation's events as they arrive, and cancel. */
import { isAgentPlatformError, type RunReport } from '@agent-platform/client';
import type { ComponentChildren } from 'preact';
import { Badge, ConfirmButton, ErrorNotice, Fields, Link, Muted, PageTitle, StatusNote, Time } from '../components.js';
import { EventLog } from '../event-log.js';
import { LIVE_POLL_MS, useAction, useResource } from '../hooks.js';
import { segment } from '../router.js';
import { useClient, usePermissions } from '../session.js';
import { runStatus, useStatusSound } from '../status-sound.js';
import { heldReason, isFinal } from './run-status.js';
import { ThreadName, ThreadRuns } from './run-thread.js';

export function RunPage({ id }: { id: string }) {
  const client = useClient();
  const can = usePermissions();
  const run = useResource((signal) => client.automations.getRun(id, { signal }), [id], { pollMs: LIVE_POLL_MS });
  const cancel = useAction(async () => {
    await client.automations.cancelRun(id);
    run.reload();
    return true;
  });
  const record = run.data;
  useStatusSound('run', record && [runStatus(record)]);
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
              ['Automation', <AutomationName id={record.automation_id} />],
              ['Trigger', record.event_key ? <code>{record.event_key}</code> : record.trigger],
              ...(record.thread_key ? ([['Thread', <ThreadName threadKey={record.thread_key} />]] as [string, ComponentChildren][]) : []),
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
              ...(record.report ? ([['Reported on GitHub', <GitHubReport report={record.report} />]] as [string, ComponentChildren][]) : []),
            ]}
          />
          {can.write && !isFinal(record) && (
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
          {record.thread_key && <ThreadRuns automationId={record.automation_id} threadKey={record.thread_key} currentId={record.id} />}
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

/**
 * The run's automation by name, linking to it. A run outlives its automation: once the automation
 * is deleted its id is all there is, shown without a link. Until the name arrives (or if it cannot
 * be loaded) the link shows the id.
 */
function AutomationName({ id }: { id: string }) {
  const client = useClient();
  const automation = useResource(
    async (signal) => {
      try {
        return await client.automations.get(id, { signal });
      } catch (error) {
        if (isAgentPlatformError(error) && error.status === 404) return null;
        throw error;
      }
    },
    [id],
  );
  if (automation.data === null) {
    return (
      <>
        <code>{id}</code> <Muted>(deleted)</Muted>
      </>
    );
  }
  return <Link to={`automations/${segment(id)}`}>{automation.data?.name ?? id}</Link>;
}

/** What the run reported back to GitHub (automations with `report_to_github`): where, the reaction, the comment, and why anything failed. */
function GitHubReport({ report }: { report: RunReport }) {
  return (
    <>
      {report.target ? <code>{report.target}</code> : <Muted>nowhere</Muted>}
      {report.reaction && <small class="detail">reaction {report.reaction === 'added' ? 'added' : 'failed'}</small>}
      {report.comment_url && (
        <small class="detail">
          <a href={report.comment_url} rel="noreferrer" target="_blank">
            outcome comment
          </a>
        </small>
      )}
      {report.comment_due && !report.comment_url && <small class="detail">outcome comment to come</small>}
      {report.error && (
        <small class="detail" role="status">
          {report.error}
        </small>
      )}
    </>
  );
}
