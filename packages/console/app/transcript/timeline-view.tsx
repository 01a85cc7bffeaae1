/** A run's timeline (timeline.ts) as a trace: one row a stage, its bar placed in the run's span. */
import { formatDuration, type Timeline } from './timeline.js';

/** The bars' coordinate width: a stage's bar is placed in 0…WIDTH for the run's whole span. */
const WIDTH = 1000;

export function TimelineView({ timeline, live }: { timeline: Timeline; live: boolean }) {
  const span = Math.max(1, timeline.ms);
  const from = (at: number) => formatDuration(at - timeline.start);
  return (
    <section aria-labelledby="timeline-title" class="run-timeline">
      <h2 id="timeline-title">Timeline</h2>
      <p class="muted">
        {formatDuration(timeline.ms)} from created to {live ? 'now, live' : 'finished'}, in {timeline.stages.length}{' '}
        {timeline.stages.length === 1 ? 'stage' : 'stages'}
      </p>
      <ol class="timeline" data-total-ms={timeline.ms}>
        {timeline.stages.map((stage, index) => (
          <li key={index} class={`stage stage-${stage.kind}${stage.live ? ' stage-live' : ''}`} data-ms={stage.ms}>
            <span class="stage-label" title={stage.label}>
              {stage.label}
            </span>
            <span class="stage-duration">
              {formatDuration(stage.ms)}
              {stage.live ? ' so far' : ''}
            </span>
            <svg
              class="stage-bar"
              role="img"
              aria-label={`${stage.label}: from ${from(stage.start)} to ${from(stage.end)}`}
              viewBox={`0 0 ${WIDTH} 10`}
              preserveAspectRatio="none"
              focusable="false"
            >
              <rect x={((stage.start - timeline.start) / span) * WIDTH} y="0" width={Math.max(3, (stage.ms / span) * WIDTH)} height="10" />
            </svg>
          </li>
        ))}
      </ol>
      {timeline.after && (
        <p class="stage-after">
          After the run: {timeline.after.label}, {formatDuration(timeline.after.ms)} after it finished.
        </p>
      )}
    </section>
  );
}
