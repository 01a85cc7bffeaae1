/**
 * A run's thread: the issue or pull request a thread automation works in (`github:acme/app#12`),
 * and the runs that share its conversation. The API has no list of a thread's runs: they are the
 * automation's runs with the same `thread_key`, taken from its latest runs.
 */
import type { Run } from '@agent-platform/client';
import { Badge, ErrorNotice, Link, Muted, Time } from '../components.js';
import { LIVE_POLL_MS, useResource } from '../hooks.js';
import { segment } from '../router.js';
import { useClient } from '../session.js';
import { Table, type Column } from '../table.js';
import { heldReason } from './run-status.js';

/** How many of the automation's latest runs are searched for the thread's (the API's largest page). */
export const THREAD_RUNS_SEARCHED = 100;

/** `acme/app #12` from `github:acme/app#12`; a key of another shape is shown as it is. */
export function threadPlace(key: string): string | null {
  const found = /^github:([^#]+)#(\d+)$/.exec(key);
  return found ? `${found[1]} #${found[2]} on GitHub` : null;
}

/** The thread's key, and where that is in words. */
export function ThreadName({ threadKey }: { threadKey: string }) {
  const place = threadPlace(threadKey);
  return (
    <>
      <code>{threadKey}</code>
      {place && <small class="detail">issue or pull request {place}</small>}
    </>
  );
}

/** The runs of the automation in this thread, newest first, the open one marked; updated live, as a queued follow-up starts. */
export function ThreadRuns({ automationId, threadKey, currentId }: { automationId: string; threadKey: string; currentId: string }) {
  const client = useClient();
  const runs = useResource((signal) => client.automations.runs(automationId, { limit: THREAD_RUNS_SEARCHED, offset: 0 }, { signal }), [automationId], {
    pollMs: LIVE_POLL_MS,
  });
  const inThread = runs.data?.runs.filter((run) => run.thread_key === threadKey) ?? [];
  const columns: Column<Run>[] = [
    {
      header: 'Run',
      cell: (run) =>
        run.id === currentId ? (
          <>
            <Link to={`runs/${segment(run.id)}`} aria-current="page">
              {run.id}
            </Link>{' '}
            <Muted>(this run)</Muted>
          </>
        ) : (
          <Link to={`runs/${segment(run.id)}`}>{run.id}</Link>
        ),
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
    { header: 'Trigger', cell: (run) => (run.event_key ? <code>{run.event_key}</code> : run.trigger) },
    { header: 'Created', cell: (run) => <Time value={run.created_at} /> },
  ];
  return (
    <section aria-labelledby="thread-runs-title">
      <h2 id="thread-runs-title">Runs in this thread</h2>
      <ErrorNotice error={runs.error} context="Loading the thread's runs failed" />
      {!runs.data && !runs.error && <p aria-busy="true">Loading…</p>}
      {runs.data && (
        <Table
          columns={columns}
          rows={inThread}
          rowKey={(run) => run.id}
          caption={`${inThread.length} ${inThread.length === 1 ? 'run' : 'runs'} sharing one conversation, newest first (among the automation's last ${THREAD_RUNS_SEARCHED})`}
        />
      )}
    </section>
  );
}
