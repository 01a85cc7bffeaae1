/**
 * Builders for the OpenHands-shaped events the agent reports.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { AgentEventData, AgentEventDraft, MetricsSnapshot, SecurityRating } from '@agent-platform/core';

export const newEventId = (): string => `evt_${randomUUID().replace(/-/g, '')}`;

/** A stored-or-not event the agent keeps in its own history: the draft and its id. */
export interface HistoryEvent {
  id: string;
  event: AgentEventDraft;
}

const oneLine = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * A tool's output as the event's message: its lines kept (a terminal's columns and line breaks
 * are what a reader needs), cut at `maxLines` lines or `maxChars` characters with a note saying
 * how much more there was; the whole output stays in the event's `observation`.
 */
export const outputExcerpt = (text: string, maxLines = 40, maxChars = 4_000): string => {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\s+$/, '').split('\n');
  let kept = lines.slice(0, maxLines).join('\n');
  if (kept.length > maxChars) kept = kept.slice(0, maxChars - 1);
  const shownLines = kept.split('\n').length;
  if (kept.length === lines.join('\n').length) return kept;
  const more = lines.length - shownLines;
  return `${kept}…${more > 0 ? `\n(${more} more ${more === 1 ? 'line' : 'lines'})` : ''}`;
};

export function messageEvent(source: 'user' | 'agent', text: string): HistoryEvent {
  return {
    id: newEventId(),
    event: {
      kind: 'MessageEvent',
      source,
      message: text,
      data: {
        llm_message: { role: source === 'user' ? 'user' : 'assistant', content: [{ type: 'text', text }] },
        activated_microagents: [],
        extended_content: [],
      },
    },
  };
}

export function actionEvent(input: {
  thought: string;
  reasoning: string | null;
  actionKind: string;
  /** The tool's arguments (without the model's `security_risk`). */
  args: Record<string, unknown>;
  /** The arguments as the model sent them, `security_risk` included (the call replayed to it); default `args`. */
  callArguments?: unknown;
  toolName: string;
  toolCallId: string;
  responseId: string;
  summary: string;
  metrics: MetricsSnapshot | null;
  /** The security analyzer's rating; `null`: none rated it (UNKNOWN). */
  rating?: SecurityRating | null;
}): HistoryEvent {
  const data: AgentEventData<'ActionEvent'> = {
    thought: input.thought ? [{ type: 'text', text: input.thought }] : [],
    reasoning_content: input.reasoning,
    action: { kind: input.actionKind, ...input.args },
    tool_name: input.toolName,
    tool_call_id: input.toolCallId,
    tool_call: {
      id: input.toolCallId,
      type: 'function',
      function: { name: input.toolName, arguments: JSON.stringify(input.callArguments === undefined ? input.args : input.callArguments) },
    },
    llm_response_id: input.responseId,
    security_risk: input.rating?.risk ?? 'UNKNOWN',
    ...(input.rating ? { security_risk_reason: input.rating.reason } : {}),
    summary: input.summary,
    metrics: input.metrics,
  };
  return { id: newEventId(), event: { kind: 'ActionEvent', source: 'agent', message: oneLine(input.summary), data } };
}

export function observationEvent(input: {
  observationKind: string;
  toolName: string;
  toolCallId: string;
  actionId: string;
  text: string;
  isError: boolean;
  extra?: Record<string, unknown>;
}): HistoryEvent {
  return {
    id: newEventId(),
    event: {
      kind: 'ObservationEvent',
      source: 'environment',
      message: outputExcerpt(input.text),
      data: {
        tool_name: input.toolName,
        tool_call_id: input.toolCallId,
        action_id: input.actionId,
        observation: { ...input.extra, kind: input.observationKind, content: [{ type: 'text', text: input.text }], is_error: input.isError },
      },
    },
  };
}

export function agentErrorEvent(toolName: string, toolCallId: string, error: string): HistoryEvent {
  return {
    id: newEventId(),
    event: { kind: 'AgentErrorEvent', source: 'agent', message: oneLine(error), data: { tool_name: toolName, tool_call_id: toolCallId, error } },
  };
}

export function rejectionEvent(toolName: string, toolCallId: string, actionId: string, reason: string): HistoryEvent {
  return {
    id: newEventId(),
    event: {
      kind: 'UserRejectObservation',
      source: 'user',
      message: oneLine(`rejected: ${reason}`),
      data: { tool_name: toolName, tool_call_id: toolCallId, action_id: actionId, rejection_reason: reason },
    },
  };
}

export function condensationEvent(forgotten: string[], summary: string, offset: number): HistoryEvent {
  return {
    id: newEventId(),
    event: {
      kind: 'Condensation',
      source: 'environment',
      message: oneLine(`condensed ${forgotten.length} events: ${summary}`),
      data: { forgotten_event_ids: forgotten, summary, summary_offset: offset },
    },
  };
}
