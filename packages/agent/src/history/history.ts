/**
 * The agent's history as model messages. The agent keeps its events (the OpenHands shapes it
 * reports) and rebuilds the messages from them for each call, so a condensation, a resumed
 * conversation and a fresh run all take the same path.
 * @module
 */
import type { AgentEventData, ConversationEvent } from '@agent-platform/core';
import type { LanguageModelV3Message } from '@ai-sdk/provider';

type ModelMessage = LanguageModelV3Message;
import type { HistoryEvent } from './events.js';

type ToolResultPart = { type: 'tool-result'; toolCallId: string; toolName: string; output: { type: 'text' | 'error-text'; value: string } };
type ToolCallPart = { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown };

const textOf = (content: { text: string }[]): string => content.map((part) => part.text).join('\n');

/** Events stored earlier in the conversation that the agent can take up again. */
export function fromStoredEvents(events: readonly ConversationEvent[]): HistoryEvent[] {
  const kept: HistoryEvent[] = [];
  for (const event of events) {
    if (event.kind === 'message' && event.source === 'user' && event.message) {
      kept.push({
        id: event.id,
        event: {
          kind: 'MessageEvent',
          source: 'user',
          message: event.message,
          data: { llm_message: { role: 'user', content: [{ type: 'text', text: event.message }] }, activated_microagents: [], extended_content: [] },
        },
      });
    } else if (
      ['MessageEvent', 'ActionEvent', 'ObservationEvent', 'AgentErrorEvent', 'UserRejectObservation', 'Condensation'].includes(event.kind) &&
      event.data
    ) {
      kept.push({ id: event.id, event: { kind: event.kind, source: event.source, message: event.message, data: event.data } as HistoryEvent['event'] });
    }
  }
  return kept;
}

/** Applies condensations: forgotten events go, each summary takes their place. */
export function visibleEvents(events: readonly HistoryEvent[]): HistoryEvent[] {
  let visible: HistoryEvent[] = [];
  for (const entry of events) {
    if (entry.event.kind !== 'Condensation') {
      visible.push(entry);
      continue;
    }
    const data = entry.event.data;
    const forgotten = new Set(data.forgotten_event_ids);
    visible = visible.filter((kept) => !forgotten.has(kept.id));
    if (data.summary) {
      const summary: HistoryEvent = { id: entry.id, event: { ...entry.event } };
      visible.splice(Math.min(data.summary_offset ?? 0, visible.length), 0, summary);
    }
  }
  return visible;
}

/** The history as the provider's prompt (without the system message). */
export function toModelMessages(events: readonly HistoryEvent[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  /** Tool calls of the assistant message being built, so later results find it. */
  let assistant: { responseId: string; text: string; calls: ToolCallPart[] } | null = null;
  let results: ToolResultPart[] = [];
  const flush = () => {
    if (assistant) {
      const content: ({ type: 'text'; text: string } | ToolCallPart)[] = [];
      if (assistant.text) content.push({ type: 'text', text: assistant.text });
      content.push(...assistant.calls);
      messages.push({ role: 'assistant', content });
      assistant = null;
    }
    if (results.length > 0) {
      messages.push({ role: 'tool', content: results });
      results = [];
    }
  };
  const answered = new Set<string>();
  for (const { event } of visibleEvents(events)) {
    switch (event.kind) {
      case 'MessageEvent': {
        flush();
        const text = textOf(event.data.llm_message.content);
        messages.push({ role: event.data.llm_message.role === 'assistant' ? 'assistant' : 'user', content: [{ type: 'text', text }] });
        break;
      }
      case 'Condensation':
        flush();
        messages.push({
          role: 'user',
          content: [{ type: 'text', text: `Summary of the earlier part of this task (older steps were condensed):\n${event.data.summary ?? ''}` }],
        });
        break;
      case 'ActionEvent': {
        const data = event.data as AgentEventData<'ActionEvent'>;
        if (!assistant || assistant.responseId !== data.llm_response_id || results.length > 0) {
          flush();
          assistant = { responseId: data.llm_response_id, text: textOf(data.thought), calls: [] };
        }
        let input: unknown = {};
        try {
          input = JSON.parse(data.tool_call.function.arguments);
        } catch {
          // The arguments were not JSON: the call is replayed with none.
        }
        assistant.calls.push({ type: 'tool-call', toolCallId: data.tool_call_id, toolName: data.tool_name, input });
        break;
      }
      case 'ObservationEvent':
      case 'AgentErrorEvent':
      case 'UserRejectObservation': {
        const data = event.data as { tool_call_id: string; tool_name: string };
        if (answered.has(data.tool_call_id)) break;
        answered.add(data.tool_call_id);
        const value =
          event.kind === 'ObservationEvent'
            ? textOf((event.data.observation as { content?: { text: string }[] }).content ?? [])
            : event.kind === 'AgentErrorEvent'
              ? event.data.error
              : `The user rejected this action: ${event.data.rejection_reason}`;
        results.push({
          type: 'tool-result',
          toolCallId: data.tool_call_id,
          toolName: data.tool_name,
          output: { type: event.kind === 'ObservationEvent' ? 'text' : 'error-text', value },
        });
        break;
      }
      default:
        break;
    }
  }
  flush();
  return closeDanglingCalls(messages);
}

/**
 * The result of a call that was started but never answered: the agent was stopped mid-step, or
 * its worker died while the call ran. Whether it ran, and how far, is not known.
 */
export const INTERRUPTED_ACTION =
  'This action was interrupted before its result was recorded (the agent was stopped, or the worker running it died): it may not have run, or may have run in part. Check its effects before running it again.';

/**
 * Every tool call needs a result before the next message (the APIs refuse otherwise): a call left
 * unanswered (the agent was stopped mid-step) gets one saying so.
 */
function closeDanglingCalls(messages: ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as ModelMessage;
    out.push(message);
    if (message.role !== 'assistant') continue;
    const calls = message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
    if (calls.length === 0) continue;
    const next = messages[index + 1];
    const answeredIds = new Set(next?.role === 'tool' ? next.content.filter((part) => part.type === 'tool-result').map((part) => part.toolCallId) : []);
    const missing = calls.filter((call) => !answeredIds.has(call.toolCallId));
    if (missing.length === 0) continue;
    const filler: ToolResultPart[] = missing.map((call) => ({
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: 'error-text', value: INTERRUPTED_ACTION },
    }));
    if (next?.role === 'tool') {
      next.content.push(...filler);
    } else out.push({ role: 'tool', content: filler });
  }
  return out;
}
