/**
 * Conversation events by kind, for code reading an agent's work. Types only come from core, so
 * the client bundle stays the client and ky.
 * @module
 */
import type { AgentConversationEvent, AgentEventKind, ConversationEvent } from '@agent-platform/core/schemas';

/**
 * Narrows a conversation event to an OpenHands kind (`ActionEvent`, `ObservationEvent`, …),
 * typing its `data`: `if (isAgentEvent(event, 'ActionEvent')) event.data.tool_call.function.name`.
 */
export function isAgentEvent<K extends AgentEventKind>(event: ConversationEvent, kind: K): event is ConversationEvent & AgentConversationEvent<K> {
  return event.kind === kind && event.data !== null;
}
