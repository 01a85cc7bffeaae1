/**
 * A run's events as a conversation to read: the task, the agent's messages, each model step with
 * its tokens and cost, each command with its output and exit code, each file edit as a diff,
 * the approvals asked and given, the notes, and how it ended. Tool calls are matched to their
 * answers by call id; an action still waiting for its answer is shown as under way.
 *
 * Pure (no DOM, no Preact).
 */
import type { ConversationEvent, MetricsSnapshot } from '@agent-platform/client';
import { type DiffLine, diffLines } from './diff.js';

/** What a model step cost: the tokens and dollars of its call, from the snapshots before and after it. */
export interface StepUsage {
  model: string;
  input: number;
  output: number;
  cost: number;
  costKnown: boolean;
}

/** Where a held action stands: waiting for an answer, accepted, or rejected (with why). */
export type Approval = { state: 'waiting' } | { state: 'approved' } | { state: 'rejected'; reason: string };

/** A tool call and its answer (`null` while it runs). */
interface CallEntry {
  id: string;
  at: string;
  /** The ActionEvent, for its risk rating. */
  action: ConversationEvent;
  tool: string;
  summary: string;
  approval: Approval | null;
  /** The answer's text: the output, the tool's error, or `null` while the call runs. */
  result: string | null;
  failed: boolean;
}

export type StoryEntry =
  | { type: 'message'; id: string; at: string; from: 'task' | 'user' | 'agent'; text: string }
  | { type: 'step'; id: string; at: string; index: number; thought: string; usage: StepUsage | null }
  | (CallEntry & { type: 'command'; command: string; exitCode: number | null })
  | (CallEntry & { type: 'edit'; path: string; command: string; diff: DiffLine[] })
  | (CallEntry & { type: 'tool'; args: string })
  | { type: 'output'; id: string; at: string; lines: string[] }
  | { type: 'note'; id: string; at: string; text: string }
  | { type: 'end'; id: string; at: string; status: string; reason: string | null };

type Data = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const textOf = (content: unknown): string =>
  Array.isArray(content) ? content.map((part) => str((part as Data | null)?.text)).join('') : typeof content === 'string' ? content : '';

/** A structured note in words: the agent chosen and why, else its type and its fields (`observation: source event, payload_bytes 17`). */
function noteText(data: Data): string {
  if (data.type === 'agent_selected') return `The ${str(data.agent)} agent was chosen: ${str(data.reason)}.`;
  const { type, ...fields } = data;
  const rest = Object.entries(fields)
    .map(([key, value]) => `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
  return [str(type), rest].filter(Boolean).join(': ');
}

/** The usage between two cumulative snapshots (`before` null: the first call). */
export function usageBetween(before: MetricsSnapshot | null, after: MetricsSnapshot): StepUsage {
  const used = after.accumulated_token_usage;
  const earlier = before?.accumulated_token_usage;
  return {
    model: after.model_name,
    input: used.prompt_tokens - (earlier?.prompt_tokens ?? 0),
    output: used.completion_tokens - (earlier?.completion_tokens ?? 0),
    cost: Math.max(0, after.accumulated_cost - (before?.accumulated_cost ?? 0)),
    costKnown: after.cost_known,
  };
}

/** The call's entry, by the kind of action: a command, a file edit, or any other tool. */
function callEntry(event: ConversationEvent, data: Data): StoryEntry {
  const action = (data.action ?? {}) as Data;
  const base: CallEntry = {
    id: event.id,
    at: event.created_at,
    action: event,
    tool: str(data.tool_name),
    summary: str(data.summary) || str(data.tool_name),
    approval: null,
    result: null,
    failed: false,
  };
  if (action.kind === 'TerminalAction' || (typeof action.command === 'string' && str(data.tool_name) === 'terminal')) {
    return { ...base, type: 'command', command: str(action.command), exitCode: null };
  }
  if (action.kind === 'FileEditorAction' && action.command !== 'view') {
    const command = str(action.command);
    const diff =
      command === 'create'
        ? diffLines('', str(action.file_text))
        : command === 'str_replace'
          ? diffLines(str(action.old_str), str(action.new_str))
          : diffLines('', str(action.new_str));
    return { ...base, type: 'edit', path: str(action.path), command, diff };
  }
  const { kind: _kind, ...args } = action;
  return { ...base, type: 'tool', args: Object.keys(args).length > 0 ? JSON.stringify(args, null, 2) : '' };
}

/** The run's story, in the order it happened. `final` is the run's usage at its end (the last step's cost, when no action carried it). */
export function storyOf(events: readonly ConversationEvent[], final: MetricsSnapshot | null = null): StoryEntry[] {
  const entries: StoryEntry[] = [];
  const calls = new Map<string, StoryEntry & CallEntry>();
  let lastSnapshot: MetricsSnapshot | null = null;
  let step: (StoryEntry & { type: 'step' }) | null = null;
  let responseId: string | null = null;
  let steps = 0;
  let waiting: (StoryEntry & CallEntry) | null = null;
  let lastAction: (StoryEntry & CallEntry) | null = null;
  const newStep = (event: ConversationEvent, thought: string) => {
    step = { type: 'step', id: `step-${event.id}`, at: event.created_at, index: ++steps, thought, usage: null };
    entries.push(step);
  };
  for (const event of events) {
    const data = (event.data ?? {}) as Data;
    switch (event.kind) {
      case 'MessageEvent':
      case 'message': {
        const text = event.kind === 'message' ? (event.message ?? '') : textOf((data.llm_message as Data | undefined)?.content) || (event.message ?? '');
        const from = event.source === 'agent' ? 'agent' : entries.some((entry) => entry.type === 'message') ? 'user' : 'task';
        if (from === 'agent') newStep(event, '');
        entries.push({ type: 'message', id: event.id, at: event.created_at, from, text });
        responseId = null;
        break;
      }
      case 'ActionEvent': {
        const response = str(data.llm_response_id);
        if (response === '' || response !== responseId) newStep(event, textOf(data.thought));
        responseId = response;
        const metrics = data.metrics as MetricsSnapshot | null | undefined;
        if (metrics && step) {
          (step as { usage: StepUsage | null }).usage = usageBetween(lastSnapshot, metrics);
          lastSnapshot = metrics;
        }
        if (data.tool_name === 'finish') {
          const message = str((data.action as Data | undefined)?.message);
          entries.push({ type: 'message', id: event.id, at: event.created_at, from: 'agent', text: message });
          break;
        }
        const entry = callEntry(event, data) as StoryEntry & CallEntry;
        calls.set(str(data.tool_call_id) || event.id, entry);
        entries.push(entry);
        lastAction = entry;
        break;
      }
      case 'ObservationEvent':
      case 'AgentErrorEvent':
      case 'UserRejectObservation': {
        const entry = calls.get(str(data.tool_call_id));
        if (data.tool_name === 'finish') break;
        if (!entry) {
          entries.push({ type: 'note', id: event.id, at: event.created_at, text: event.message ?? str(data.error) });
          break;
        }
        const observation = (data.observation ?? {}) as Data;
        if (event.kind === 'UserRejectObservation') {
          entry.approval = { state: 'rejected', reason: str(data.rejection_reason) };
          entry.result = '';
        } else {
          if (entry.approval?.state === 'waiting') entry.approval = { state: 'approved' };
          entry.result = event.kind === 'AgentErrorEvent' ? str(data.error) : textOf(observation.content) || (event.message ?? '');
          entry.failed = event.kind === 'AgentErrorEvent' || observation.is_error === true;
          if (entry.type === 'command' && typeof observation.exit_code === 'number') {
            entry.exitCode = observation.exit_code;
            // The tool tells the model the exit code at the output's end: the block shows it apart.
            entry.result = entry.result.replace(/\n*\[exit code -?\d+\]\s*$/, '');
          }
        }
        if (waiting === entry) waiting = null;
        break;
      }
      case 'ConversationStateUpdateEvent':
        if (data.key === 'execution_status' && data.value === 'waiting_for_confirmation' && lastAction && lastAction.result === null) {
          waiting = lastAction;
          waiting.approval = { state: 'waiting' };
        } else if (data.key === 'execution_status' && data.value === 'running' && waiting) {
          waiting.approval = { state: 'approved' };
          waiting = null;
        }
        break;
      case 'agent_output': {
        const last = entries.at(-1);
        if (last?.type === 'output') last.lines.push(event.message ?? '');
        else entries.push({ type: 'output', id: event.id, at: event.created_at, lines: [event.message ?? ''] });
        break;
      }
      case 'agent_event':
        entries.push({ type: 'note', id: event.id, at: event.created_at, text: event.message ?? noteText(data) });
        break;
      case 'status':
        entries.push({
          type: 'end',
          id: event.id,
          at: event.created_at,
          status: str(data.status),
          reason: typeof data.reason === 'string' ? data.reason : null,
        });
        break;
      case 'Condensation':
        entries.push({ type: 'note', id: event.id, at: event.created_at, text: 'Older events were condensed into a summary.' });
        break;
      case 'PauseEvent':
        entries.push({ type: 'note', id: event.id, at: event.created_at, text: 'Paused.' });
        break;
    }
  }
  // The last step's call carried no snapshot (a final answer): its usage is the run's end less the last one seen.
  const lastStep = entries.findLast((entry): entry is StoryEntry & { type: 'step' } => entry.type === 'step');
  if (lastStep && !lastStep.usage && final && final.llm_calls > (lastSnapshot?.llm_calls ?? 0)) lastStep.usage = usageBetween(lastSnapshot, final);
  return entries;
}

/** The agent's answer: its `finish` message, else its last message; `null` before it gave one. */
export function answerOf(events: readonly ConversationEvent[]): string | null {
  for (const event of [...events].reverse()) {
    const data = (event.data ?? {}) as Data;
    if (event.kind === 'ActionEvent' && data.tool_name === 'finish') return str((data.action as Data | undefined)?.message) || null;
    if (event.kind === 'MessageEvent' && event.source === 'agent') return textOf((data.llm_message as Data | undefined)?.content) || event.message;
  }
  return null;
}
