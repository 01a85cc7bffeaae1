/**
 * Where the steps of a run write what it does. One typed object instead of generators yielding
 * through one another: the runner turns what it receives into the port's `AgentEvent`s, in order.
 * Each write resolves once the consumer has taken the event (as a `yield` would), so a step that
 * awaits its writes goes no faster than the run is read.
 * @module
 */
import type { AgentOutcome, MetricsSnapshot } from '@agent-platform/core';
import type { HistoryEvent } from '../history/events.js';

export interface EventSink {
  /** An OpenHands event of the agent's history (action, observation, error, …), stored under its id. */
  record(entry: HistoryEvent): Promise<void>;
  /** A note for the conversation (an `agent_event`): an MCP server down, a budget not enforced, … */
  note(data: Record<string, unknown>): Promise<void>;
  /** The token usage and cost so far. */
  metrics(snapshot: MetricsSnapshot): Promise<void>;
  /** How the run ended: the last thing it reports, once. */
  finish(outcome: AgentOutcome): Promise<void>;
}

/** What a write fails with once the consumer has stopped reading: the run unwinds and releases what it holds. */
export class SinkClosedError extends Error {
  constructor() {
    super('the consumer stopped reading the run');
    this.name = 'SinkClosedError';
  }
}
