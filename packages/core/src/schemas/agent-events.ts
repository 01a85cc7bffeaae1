/**
 * What an agent does, in the OpenHands agent-server event shapes. A stored
 * conversation event keeps its envelope (`id`, `seq`, `source`, `created_at`) and, for these
 * kinds, holds the OpenHands event body in `data`: `{ id, timestamp, source, kind, ...data }` is
 * the event as the agent-server sends it (`toAgentServerEvent`).
 * @module
 */
import { z } from 'zod';
import { metricsSnapshotSchema } from './metrics.js';
import { securityRiskSchema } from './security-risk.js';
import { timestampSchema } from './common.js';

export const textContentSchema = z.object({ type: z.literal('text'), text: z.string() });
export type TextContent = z.infer<typeof textContentSchema>;

/** A tool's arguments (`kind` names them, e.g. `TerminalAction`) or result (`TerminalObservation`). */
const toolPayloadSchema = z.looseObject({ kind: z.string() });

/** A user's or the agent's message. */
export const messageEventDataSchema = z.object({
  llm_message: z.object({ role: z.enum(['user', 'assistant', 'system']), content: z.array(textContentSchema) }),
  activated_microagents: z.array(z.string()),
  extended_content: z.array(textContentSchema),
});

/** One tool call the model made, with the text it wrote before it. */
export const actionEventDataSchema = z.object({
  thought: z.array(textContentSchema),
  reasoning_content: z.string().nullable(),
  action: toolPayloadSchema,
  tool_name: z.string(),
  tool_call_id: z.string(),
  tool_call: z.object({
    id: z.string(),
    type: z.literal('function'),
    function: z.object({ name: z.string(), arguments: z.string() }),
  }),
  /** Groups the tool calls of one model response. */
  llm_response_id: z.string(),
  /** The security analyzer's rating of the action (`UNKNOWN` when none rated it). */
  security_risk: securityRiskSchema,
  /** Why it was rated so, in a few words ("force push to main"); absent or `null` when no analyzer rated it. */
  security_risk_reason: z.string().nullish(),
  /** A short description of the action, for logs and consoles. */
  summary: z.string().nullable(),
  /** The token usage and cost so far, on the last action of a response. */
  metrics: metricsSnapshotSchema.nullable(),
});

/** What a tool call returned. */
export const observationEventDataSchema = z.object({
  tool_name: z.string(),
  tool_call_id: z.string(),
  observation: toolPayloadSchema,
  /** The `id` of the ActionEvent it answers. */
  action_id: z.string(),
});

/** A tool call that could not run (unknown tool, bad arguments) or an error of the agent itself. */
export const agentErrorEventDataSchema = z.object({
  tool_name: z.string(),
  tool_call_id: z.string(),
  error: z.string(),
});

/** An action the user rejected in confirmation mode. */
export const userRejectObservationDataSchema = z.object({
  tool_name: z.string(),
  tool_call_id: z.string(),
  rejection_reason: z.string(),
  action_id: z.string(),
});

export const pauseEventDataSchema = z.object({});

/** A change of the conversation's state (`execution_status`, `stats`, …). */
export const conversationStateUpdateEventDataSchema = z.object({ key: z.string(), value: z.unknown() });

/** Older events the condenser replaced with a summary. */
export const condensationDataSchema = z.object({
  forgotten_event_ids: z.array(z.string()),
  summary: z.string().nullable(),
  summary_offset: z.number().int().nullable(),
});

/** The body (`data`) of each OpenHands event kind. */
export const AGENT_EVENT_DATA_SCHEMAS = {
  MessageEvent: messageEventDataSchema,
  ActionEvent: actionEventDataSchema,
  ObservationEvent: observationEventDataSchema,
  AgentErrorEvent: agentErrorEventDataSchema,
  UserRejectObservation: userRejectObservationDataSchema,
  PauseEvent: pauseEventDataSchema,
  ConversationStateUpdateEvent: conversationStateUpdateEventDataSchema,
  Condensation: condensationDataSchema,
} as const;

export type AgentEventKind = keyof typeof AGENT_EVENT_DATA_SCHEMAS;
export const AGENT_EVENT_KINDS = Object.keys(AGENT_EVENT_DATA_SCHEMAS) as AgentEventKind[];

export type AgentEventData<K extends AgentEventKind = AgentEventKind> = z.infer<(typeof AGENT_EVENT_DATA_SCHEMAS)[K]>;

/** Who an event comes from, as OpenHands names it: the environment answers tool calls. */
export const eventSourceSchema = z.enum(['user', 'agent', 'environment', 'system']);
export type EventSource = z.infer<typeof eventSourceSchema>;

/**
 * An OpenHands event the agent produced, before it is stored: `message` is a one-line plain-text
 * rendering (the message text, the command, the start of the output) for logs and consoles.
 */
export type AgentEventDraft = {
  [K in AgentEventKind]: { kind: K; source: EventSource; message: string | null; data: AgentEventData<K> };
}[AgentEventKind];

/** A line a command agent printed, kept as it came (stored with kind `agent_output`). */
export type AgentOutputDraft = { kind: 'agent_output'; source: 'agent'; message: string; data: null };
/** A structured note from an agent or the platform (kind `agent_event`): which agent was chosen, an MCP server that did not answer. */
export type AgentNoteDraft = { kind: 'agent_event'; source: 'agent'; message: null; data: Record<string, unknown> };
/** Everything an agent runner reports to its conversation: an OpenHands-shaped event, an output line, or a note. */
export type RunnerEventDraft = AgentEventDraft | AgentOutputDraft | AgentNoteDraft;

export const agentOutputDraft = (message: string): AgentOutputDraft => ({ kind: 'agent_output', source: 'agent', message, data: null });
export const agentNoteDraft = (data: Record<string, unknown>): AgentNoteDraft => ({ kind: 'agent_event', source: 'agent', message: null, data });

/**
 * The stages of an agent job before its conversation opened (the sandbox started, the repository
 * cloned), with when each began and ended: noted once the conversation opens (kind `agent_event`,
 * source `system`), as nothing could be written to it before. A run's timeline reads them.
 */
export const jobStagesNoteSchema = z.object({
  type: z.literal('job_stages'),
  stages: z.array(z.object({ stage: z.enum(['sandbox', 'repository']), started_at: timestampSchema, ended_at: timestampSchema })),
});
export type JobStagesNote = z.infer<typeof jobStagesNoteSchema>;
