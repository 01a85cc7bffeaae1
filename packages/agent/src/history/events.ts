/**
 * Builders for the OpenHands-shaped events the agent reports.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { AgentEventData, AgentEventDraft, MetricsSnapshot } from '@agent-platform/core';

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
  args: Record<string, unknown>;
  toolName: string;
  toolCallId: string;
  responseId: string;
  summary: string;
  metrics: MetricsSnapshot | null;
}): HistoryEvent {
  const data: AgentEventData<'ActionEvent'> = {
    thought: input.thought ? [{ type: 'text', text: input.thought }] : [],
    reasoning_content: input.reasoning,
    action: { kind: input.actionKind, ...input.args },
    tool_name: input.toolName,
    tool_call_id: input.toolCallId,
    tool_call: { id: input.toolCallId, type: 'function', function: { name: input.toolName, arguments: JSON.stringify(input.args) } },
    llm_response_id: input.responseId,
    security_risk: 'UNKNOWN',
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
      message: oneLine(input.text),
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
