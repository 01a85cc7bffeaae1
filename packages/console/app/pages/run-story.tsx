/**
 * A run's story on its page: the timeline of its stages, the transcript of what the agent did,
 * and beside it the answer on the run's host — all from the run's events (readable by anyone in
 * the org), live while the run goes. The raw events stay a switch away, for debugging.
 */
import type { ConversationEvent, Run, RunReport } from '@agent-platform/client';
import { useMemo, useState } from 'preact/hooks';
import { ErrorNotice, Link, Muted, Time } from '../components.js';
import { segment } from '../router.js';
import { Markdown } from '../transcript/markdown-view.js';
import { useRunEvents } from '../transcript/run-events.js';
import { answerOf, storyOf } from '../transcript/story.js';
import { runTimeline } from '../transcript/timeline.js';
import { TimelineView } from '../transcript/timeline-view.js';
import { Transcript } from '../transcript/transcript.js';
import { isFinal } from './run-status.js';

export function RunStory({ run }: { run: Run }) {
  const final = isFinal(run);
  const { events, error, loaded } = useRunEvents(run.id, !final);
  const [raw, setRaw] = useState(false);
  const story = useMemo(() => storyOf(events, run.metrics ?? null), [events, run.metrics]);
  const waiting = story.some((entry) => 'approval' in entry && entry.approval?.state === 'waiting');
  const answer = answerOf(events);
  return (
    <>
      <TimelineView timeline={runTimeline(run, events, Date.now())} live={!final} />
      <div class="run-story">
        <section aria-labelledby="transcript-title" class="run-transcript">
          <div class="section-head">
            <h2 id="transcript-title">Transcript</h2>
            <label class="raw-toggle">
              <input type="checkbox" checked={raw} onChange={(event) => setRaw((event.currentTarget as HTMLInputElement).checked)} />
              Raw events
            </label>
          </div>
          <ErrorNotice error={error} context="Loading the run's events failed" />
          {!loaded && !error && <p aria-busy="true">Loading…</p>}
          {waiting && !final && (
            <p class="notice" role="status">
              The agent holds its next action for approval: its owner answers on the{' '}
              {run.conversation_id ? <Link to={`conversations/${segment(run.conversation_id)}`}>conversation's page</Link> : "conversation's page"}, or a
              trusted person with <code>/approve</code> or <code>/reject</code> in the thread.
            </p>
          )}
          {final && !run.conversation_id ? (
            <p class="muted">This run had no conversation.</p>
          ) : raw ? (
            <RawEvents events={events} />
          ) : (
            <Transcript entries={story} />
          )}
        </section>
        <aside aria-labelledby="answer-title" class="host-answer">
          <h2 id="answer-title">The answer</h2>
          {run.report ? <HostReport report={run.report} /> : <p class="muted">Not posted on a host: the automation does not report back where it was asked.</p>}
          {answer ? <Markdown text={answer} /> : <p class="muted">{final ? 'The agent gave no answer.' : 'The agent has not answered yet.'}</p>}
        </aside>
      </div>
    </>
  );
}

/** Where the run reported back (automations with `report_to_github`): the thread, the reaction, the outcome comment, and why anything failed. */
function HostReport({ report }: { report: RunReport }) {
  return (
    <dl class="fields host-report">
      <div>
        <dt>Posted in</dt>
        <dd>{report.target ? <code>{report.target}</code> : <Muted>nowhere</Muted>}</dd>
      </div>
      {report.reaction && (
        <div>
          <dt>Reaction</dt>
          <dd>{report.reaction === 'added' ? 'added' : 'failed'}</dd>
        </div>
      )}
      <div>
        <dt>Outcome comment</dt>
        <dd>
          {report.comment_url ? (
            <a href={report.comment_url} rel="noreferrer" target="_blank">
              outcome comment
            </a>
          ) : report.comment_due ? (
            'to come'
          ) : (
            <Muted>none</Muted>
          )}{' '}
          <small class="detail">
            updated <Time value={report.updated_at} />
          </small>
        </dd>
      </div>
      {report.error && (
        <div>
          <dt>Error</dt>
          <dd>
            <span role="status">{report.error}</span>
          </dd>
        </div>
      )}
    </dl>
  );
}

/** Each event as stored: its kind, source, time and body. */
function RawEvents({ events }: { events: readonly ConversationEvent[] }) {
  if (events.length === 0) return <p class="muted">No events yet.</p>;
  return (
    <ol class="raw-events" aria-label="Events as stored">
      {events.map((event) => (
        <li key={event.id}>
          <span class="event-meta">
            #{event.seq} <span class="event-kind">{event.kind}</span> from {event.source} · <Time value={event.created_at} />
          </span>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the block scrolls on its own; keyboard users focus it to scroll it (WCAG 2.1.1) */}
          <pre tabIndex={0}>
            <code>{JSON.stringify(event.data ?? event.message, null, 2)}</code>
          </pre>
        </li>
      ))}
    </ol>
  );
}
