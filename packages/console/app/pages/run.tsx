/**
 * One run: its fields, its automation by name, a link to share in the org, cancel, and its story
 * (run-story.tsx: the timeline, the transcript and the answer on its host), live.
 */
import { isAgentPlatformError } from '@agent-platform/client';
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { Badge, ConfirmButton, ErrorNotice, Fields, Link, Muted, PageTitle, StatusNote, Time } from '../components.js';
import { formatNumber, formatUsd } from '../format.js';
import { LIVE_POLL_MS, useAction, useResource } from '../hooks.js';
import { consoleRoot, segment } from '../router.js';
import { useClient, usePermissions } from '../session.js';
import { runStatus, useStatusSound } from '../status-sound.js';
import { heldReason, isFinal } from './run-status.js';
import { RunStory } from './run-story.js';
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
        <div class="run-page">
          <div class="run-links">
            <Link to={`runs?automation=${encodeURIComponent(record.automation_id)}`}>Runs of this automation</Link>
            <CopyLink runId={record.id} />
          </div>
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
              [
                'Model usage',
                record.metrics
                  ? `${record.metrics.model_name}: ${formatNumber(record.metrics.llm_calls)} calls, ${formatNumber(record.metrics.accumulated_token_usage.prompt_tokens)} tokens in, ${formatNumber(record.metrics.accumulated_token_usage.completion_tokens)} out, ${record.metrics.cost_known ? formatUsd(record.metrics.accumulated_cost) : 'cost unknown'}`
                  : null,
              ],
              ['Conversation', record.conversation_id ? <Link to={`conversations/${segment(record.conversation_id)}`}>{record.conversation_id}</Link> : null],
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
          <RunStory key={record.id} run={record} />
        </div>
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

/**
 * Copies the run's address: anyone signed in to the run's org opens it (its events are the org's
 * to read). Where the clipboard is not allowed, the address is shown selected, to copy by hand.
 */
function CopyLink({ runId }: { runId: string }) {
  const url = new URL(`runs/${segment(runId)}`, consoleRoot).href;
  const [note, setNote] = useState<string | null>(null);
  const [shown, setShown] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setNote('Link copied: anyone signed in to this org can open the run.');
    } catch {
      setShown(true);
      setNote('Copying was not allowed here: copy the selected link with the keyboard.');
      requestAnimationFrame(() => inputRef.current?.select());
    }
  };
  return (
    <span class="copy-link">
      <button type="button" class="secondary outline" onClick={() => void copy()}>
        Copy link
      </button>
      {shown && (
        <label>
          Link to this run
          <input ref={inputRef} type="text" readOnly value={url} />
        </label>
      )}
      {note && <span role="status">{note}</span>}
    </span>
  );
}
