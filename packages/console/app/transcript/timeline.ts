/**
 * A run's timeline: its stages one after another, from the moment it was created to the moment
 * it finished (or now, while it goes), so their durations add up to the run's. The times come
 * from the run (created, started, finished), the note of its job's first stages (sandbox,
 * repository: `job_stages`), and its events (each model call ends where the agent acts or
 * answers; each tool call where its answer is written; an approval where the agent goes on).
 * The answer posted on the run's host after it finished is shown apart, after the run.
 *
 * Pure (no DOM, no Preact).
 */
import { FINAL_RUN_STATUSES, type ConversationEvent, type Run } from '@agent-platform/client';

export type StageKind = 'wait' | 'platform' | 'model' | 'tool' | 'approval' | 'agent' | 'host';

export interface TimelineStage {
  label: string;
  kind: StageKind;
  /** Milliseconds since the epoch. */
  start: number;
  end: number;
  /** `end - start`. */
  ms: number;
  /** The stage under way now (a live run's last). */
  live: boolean;
}

export interface Timeline {
  start: number;
  end: number;
  /** The run's duration: the sum of the stages'. */
  ms: number;
  stages: TimelineStage[];
  /** The answer posted on the host once the run finished; `null` for none. */
  after: TimelineStage | null;
}

interface Mark {
  at: number;
  /** The stage that ends here. */
  label: string;
  kind: StageKind;
  /**
   * Before the marks of the same millisecond: the job's first stages, which happened before the
   * conversation opened but are noted in it after its first message (the two can share a
   * millisecond on a fast runtime).
   */
  early?: true;
}

type Data = Record<string, unknown>;
const time = (iso: string | null | undefined): number | null => (iso ? Date.parse(iso) : null);

/** The marks the events make, in the order they happened, and what is under way after the last. */
function eventMarks(events: readonly ConversationEvent[]): { marks: Mark[]; next: Omit<Mark, 'at'> } {
  const marks: Mark[] = [];
  const summaries = new Map<string, string>();
  let responseId: string | null = null;
  let steps = 0;
  let next: Omit<Mark, 'at'> = { label: 'Starting: sandbox and repository', kind: 'platform' };
  let opened = false;
  let lastSummary = 'tool';
  for (const event of events) {
    const data = (event.data ?? {}) as Data;
    const at = Date.parse(event.created_at);
    const mark = (label: string, kind: StageKind) => marks.push({ at, label, kind });
    switch (event.kind) {
      case 'agent_event':
        if (data.type === 'job_stages' && Array.isArray(data.stages)) {
          for (const stage of data.stages as { stage: string; started_at: string; ended_at: string }[]) {
            const first = stage.stage === 'sandbox';
            marks.push({ at: Date.parse(stage.started_at), label: first ? 'Claimed: the attempt prepared' : 'Sandbox ready', kind: 'platform', early: true });
            marks.push({ at: Date.parse(stage.ended_at), label: first ? 'Sandbox started' : 'Repository checked out', kind: 'platform', early: true });
          }
        } else if (data.type === 'agent_selected') mark('Agent chosen', 'platform');
        else if (event.source === 'agent') {
          mark('Agent at work', 'agent');
          next = { label: 'Agent at work', kind: 'agent' };
        }
        break;
      case 'MessageEvent':
      case 'message':
        if (event.source === 'agent') {
          mark(`Model call ${++steps}: the answer`, 'model');
          responseId = null;
        } else if (!opened) mark('Conversation opened with the task', 'platform');
        opened = true;
        next = { label: `Model call ${steps + 1}`, kind: 'model' };
        break;
      case 'ActionEvent': {
        const response = String(data.llm_response_id ?? '');
        if (response === '' || response !== responseId) mark(`Model call ${++steps}`, 'model');
        responseId = response;
        const summary = String(data.summary ?? data.tool_name ?? 'tool');
        summaries.set(String(data.tool_call_id), summary);
        lastSummary = summary;
        next = { label: `Tool: ${summary}`, kind: 'tool' };
        break;
      }
      case 'ObservationEvent':
      case 'AgentErrorEvent':
        if (data.tool_name === 'finish') break;
        mark(`Tool: ${summaries.get(String(data.tool_call_id)) ?? String(data.tool_name ?? 'tool')}`, 'tool');
        next = { label: `Model call ${steps + 1}`, kind: 'model' };
        break;
      case 'UserRejectObservation':
        mark('Waiting for approval: rejected', 'approval');
        next = { label: `Model call ${steps + 1}`, kind: 'model' };
        break;
      case 'ConversationStateUpdateEvent':
        if (data.value === 'waiting_for_confirmation') next = { label: 'Waiting for approval', kind: 'approval' };
        else if (data.value === 'running' && next.kind === 'approval') {
          mark('Waiting for approval: approved', 'approval');
          next = { label: `Tool: ${lastSummary}`, kind: 'tool' };
        }
        break;
      case 'agent_output':
        mark('Agent at work', 'agent');
        next = { label: 'Agent at work', kind: 'agent' };
        break;
      case 'status':
        mark('Closing: the sandbox removed, the outcome recorded', 'platform');
        next = { label: 'Finishing the run', kind: 'platform' };
        break;
    }
  }
  return { marks, next };
}

/** The timeline of `run` from its events; `now` ends a run still under way. */
export function runTimeline(run: Run, events: readonly ConversationEvent[], now: number): Timeline {
  const start = Date.parse(run.created_at);
  const final = FINAL_RUN_STATUSES.includes(run.status);
  const lastEvent = time(events.at(-1)?.created_at);
  const end = Math.max(start, final ? (time(run.completed_at) ?? lastEvent ?? start) : now);
  const marks: Mark[] = [];
  const started = time(run.started_at);
  if (started !== null) marks.push({ at: started, label: 'Queued', kind: 'wait', early: true });
  const found = eventMarks(events);
  marks.push(...found.marks);
  // Stable: marks at the same moment keep the order they were made in, the job's first stages first.
  marks.sort((a, b) => a.at - b.at || Number(b.early ?? false) - Number(a.early ?? false));
  let next: Omit<Mark, 'at'>;
  if (final) next = { label: 'Run finished', kind: 'platform' };
  else if (started === null) next = { label: run.status === 'PENDING' ? 'Queued' : 'Starting', kind: 'wait' };
  else next = found.next;
  marks.push({ at: end, ...next });

  const stages: TimelineStage[] = [];
  let from = start;
  for (const mark of marks) {
    const at = Math.min(end, Math.max(from, mark.at));
    const last = stages.at(-1);
    // The agent's lines one after another are one stage.
    if (last && last.kind === 'agent' && mark.kind === 'agent' && last.label === mark.label) {
      last.end = at;
      last.ms = at - last.start;
    } else stages.push({ label: mark.label, kind: mark.kind, start: from, end: at, ms: at - from, live: false });
    from = at;
  }
  const current = stages.at(-1);
  if (!final && current) current.live = true;
  const posted = run.report?.comment_url ? time(run.report.updated_at) : null;
  const after =
    final && posted !== null && posted >= end
      ? { label: `Answer posted on ${run.report?.target ?? 'the host'}`, kind: 'host' as const, start: end, end: posted, ms: posted - end, live: false }
      : null;
  return { start, end, ms: end - start, stages, after };
}

/** `350 ms`, `4.2 s`, `3 min 5 s`, `1 h 2 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}
