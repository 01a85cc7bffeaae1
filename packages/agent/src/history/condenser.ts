/**
 * The default condenser (`enable_default_condenser`): when the context nears the model's limit
 * (or the history grows past a number of events), the older half of the history — all but the
 * first message — is summarised by the model and replaced with the summary (a `Condensation`
 * event), as OpenHands' LLM summarising condenser does.
 * @module
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { HistoryEvent } from './events.js';
import { callModel, type ModelStep } from '../model/model-call.js';
import { visibleEvents } from './history.js';

export interface CondenserOptions {
  /** Condense when this many events are visible. Default 120. */
  maxEvents?: number;
  /** Condense when the last prompt used this share of the context window. Default 0.75. */
  contextFraction?: number;
  /** Characters of forgotten history sent to be summarised. Default 100,000. */
  maxSummaryInputChars?: number;
}

/** Events kept at the start whatever happens: the task. */
const KEEP_FIRST = 1;

export function shouldCondense(events: readonly HistoryEvent[], lastPromptTokens: number, contextWindow: number | null, options: CondenserOptions): boolean {
  const visible = visibleEvents(events);
  if (visible.length <= KEEP_FIRST + 2) return false;
  if (visible.length > (options.maxEvents ?? 120)) return true;
  return contextWindow !== null && lastPromptTokens > contextWindow * (options.contextFraction ?? 0.75);
}

const isAnswer = (entry: HistoryEvent | undefined): boolean =>
  entry !== undefined && ['ObservationEvent', 'AgentErrorEvent', 'UserRejectObservation'].includes(entry.event.kind);

/**
 * The ids of the events to forget: from after the first event to about half the history, never
 * splitting a tool call from its result.
 */
export function eventsToForget(events: readonly HistoryEvent[]): string[] {
  const visible = visibleEvents(events);
  let cut = Math.max(KEEP_FIRST + 1, Math.floor(visible.length / 2));
  // The kept tail must not start with a result whose call was forgotten, nor in the middle of one response's calls.
  while (cut < visible.length - 1 && (isAnswer(visible[cut]) || sameResponse(visible[cut - 1], visible[cut]))) cut++;
  return visible.slice(KEEP_FIRST, cut).map((entry) => entry.id);
}

function sameResponse(a: HistoryEvent | undefined, b: HistoryEvent | undefined): boolean {
  if (a?.event.kind !== 'ActionEvent' || b?.event.kind !== 'ActionEvent') return false;
  return a.event.data.llm_response_id === b.event.data.llm_response_id;
}

function render(entry: HistoryEvent): string {
  const { event } = entry;
  if (event.kind === 'ObservationEvent') {
    const content = (event.data.observation as { content?: { text: string }[] }).content ?? [];
    return `[result of ${event.data.tool_name}] ${content
      .map((part) => part.text)
      .join('\n')
      .slice(0, 4000)}`;
  }
  if (event.kind === 'ActionEvent') return `[${event.data.tool_name}] ${event.data.tool_call.function.arguments.slice(0, 4000)}`;
  return `[${event.kind} from ${event.source}] ${event.message ?? ''}`;
}

export async function summarize(
  model: LanguageModelV3,
  forgotten: readonly HistoryEvent[],
  options: CondenserOptions & { signal: AbortSignal; maxRetries: number },
): Promise<ModelStep & { summary: string }> {
  const max = options.maxSummaryInputChars ?? 100_000;
  let transcript = forgotten.map(render).join('\n\n');
  if (transcript.length > max) transcript = transcript.slice(transcript.length - max);
  const result = await callModel({
    model,
    prompt: [
      {
        role: 'system',
        content:
          "You summarise the earlier part of a coding agent's work so that it can go on without it. Keep: the task's requirements, what was " +
          'done and found (files changed, commands that worked or failed, key facts), and what remains. Be concise and concrete.',
      },
      { role: 'user', content: [{ type: 'text', text: `Summarise these steps:\n\n${transcript}` }] },
    ],
    tools: [],
    signal: options.signal,
    maxRetries: options.maxRetries,
  });
  // The call's report (usage, ids, attempts) goes with it: the condenser's calls are counted and traced as the loop's are.
  return { ...result, summary: result.text.trim() || '(no summary)' };
}
