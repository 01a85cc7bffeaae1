import { z } from 'zod';
import { timestampSchema } from './common.js';
import { sandboxStatusSchema } from './sandbox-spec.js';
import { AGENT_EVENT_KINDS, eventSourceSchema, type AgentEventData, type AgentEventKind } from './agent-events.js';
import { metricsSnapshotSchema } from './metrics.js';

export const CONVERSATION_TRIGGERS = ['gui', 'automation', 'api'] as const;
/** OpenHands' execution statuses, and `stopped` (cancelled or shut down). */
export const EXECUTION_STATUSES = ['idle', 'running', 'paused', 'waiting_for_confirmation', 'finished', 'error', 'stuck', 'stopped'] as const;

/** An app conversation (OpenHands shape). */
export const appConversationSchema = z.object({
  id: z.string(),
  created_by_user_id: z.string(),
  sandbox_id: z.string().nullable(),
  selected_repository: z.string().nullable(),
  selected_branch: z.string().nullable(),
  git_provider: z.string().nullable(),
  title: z.string().nullable(),
  trigger: z.enum(CONVERSATION_TRIGGERS),
  pr_number: z.array(z.number().int()),
  llm_model: z.string().nullable(),
  sandbox_status: sandboxStatusSchema.nullable(),
  execution_status: z.enum(EXECUTION_STATUSES),
  /** The agent's token usage and cost so far (built-in agent). */
  metrics: metricsSnapshotSchema.nullish(),
  /** Where the agent-server subset serves it (`{publicUrl}/api/conversations/{id}`); computed, not stored. */
  conversation_url: z.string().optional(),
  /**
   * The session key of the conversation's sandbox (OpenHands' `session_api_key`: the
   * agent-server's `X-Session-API-Key`), to build an agent-server client with `conversation_url`;
   * `null` unless the sandbox is running. Computed, not stored; given to the conversation's owner
   * only.
   */
  session_api_key: z.string().nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type AppConversation = z.infer<typeof appConversationSchema>;

export const appConversationRecordSchema = appConversationSchema.omit({ conversation_url: true, session_api_key: true }).extend({
  org_id: z.string(),
  /** The automation run it belongs to, for trigger `automation`. */
  run_id: z.string().nullable(),
  /** Control requests for the process running the agent (any process may write them): pause. */
  pause_requested: z.boolean().nullish(),
  /** The user's answer to the action held for confirmation, until the agent takes it. */
  confirmation_response: z.object({ action_id: z.string(), accept: z.boolean(), reason: z.string() }).nullish(),
  /**
   * How many writes the stored record has had (from 0): storage bumps it on every patch, and a
   * writer that decides from what it read passes it back so that a write made meanwhile is not
   * undone. Stored only: never part of the conversation as returned.
   */
  version: z.number().int().min(0),
});
export type AppConversationRecord = z.infer<typeof appConversationRecordSchema>;

/**
 * The OpenHands kinds (`MessageEvent`, `ActionEvent`, …: see `agent-events.ts`, with their body in
 * `data`), and the platform's own: `agent_output` (a line a command agent printed),
 * `agent_event` (a JSON line it printed), `status` (how the agent ended). `message` is the
 * pre-OpenHands user message, still read from older stores.
 */
export const CONVERSATION_EVENT_KINDS = [...AGENT_EVENT_KINDS, 'message', 'agent_output', 'agent_event', 'status'] as const;

/** Something that happened in a conversation: a message, the agent's output, a status change. */
export const conversationEventSchema = z.object({
  id: z.string(),
  conversation_id: z.string(),
  /** Position in the conversation, from 0, without gaps. */
  seq: z.number().int().min(0),
  kind: z.enum(CONVERSATION_EVENT_KINDS),
  source: eventSourceSchema,
  /** The message text, for messages and plain agent output; a one-line rendering of other events. */
  message: z.string().nullable(),
  /** A structured event (an agent's JSON line, a status change). */
  data: z.record(z.string(), z.unknown()).nullable(),
  created_at: timestampSchema,
  /** The attempt of the automation run that wrote it (1, 2, …); absent outside runs. */
  attempt: z.number().int().min(1).optional(),
});
export type ConversationEvent = z.infer<typeof conversationEventSchema>;

/** A conversation event of one OpenHands kind, its `data` typed by that kind. */
export type AgentConversationEvent<K extends AgentEventKind = AgentEventKind> = {
  [Kind in K]: Omit<ConversationEvent, 'kind' | 'data'> & { kind: Kind; data: AgentEventData<Kind> };
}[K];

/** A stored event as the OpenHands agent-server sends it: `{ id, timestamp, source, kind, ...data }`. */
export function toAgentServerEvent(event: ConversationEvent): Record<string, unknown> {
  return { ...(event.data ?? {}), id: event.id, timestamp: event.created_at, source: event.source, kind: event.kind };
}

export const START_TASK_STATUSES = ['WORKING', 'WAITING_FOR_SANDBOX', 'PREPARING_REPOSITORY', 'STARTING_CONVERSATION', 'READY', 'ERROR'] as const;

/** The background work of starting a conversation (OpenHands shape). */
export const startTaskSchema = z.object({
  id: z.string(),
  created_by_user_id: z.string(),
  status: z.enum(START_TASK_STATUSES),
  detail: z.string().nullable(),
  app_conversation_id: z.string().nullable(),
  sandbox_id: z.string().nullable(),
  request: z.record(z.string(), z.unknown()),
  /** Once READY: the agent server for the conversation — the platform itself. Computed, not stored. */
  agent_server_url: z.string().nullable().optional(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type StartTask = z.infer<typeof startTaskSchema>;
export const startTaskRecordSchema = startTaskSchema.omit({ agent_server_url: true }).extend({ org_id: z.string() });
export type StartTaskRecord = z.infer<typeof startTaskRecordSchema>;

const MAX_MESSAGE = 50_000;

/**
 * A user message as OpenHands' `SendMessageRequest`: `{"role": "user", "content": [{"type":
 * "text", "text": "..."}], "run": true}`; `content` may also be a plain string. `run` asks an idle
 * agent to take it up (default false for a follow-up, true for a conversation's first message).
 */
export const sendMessageInputSchema = z.object({
  role: z.literal('user').optional(),
  content: z.union([
    z.string().min(1).max(MAX_MESSAGE),
    z
      .array(z.looseObject({ type: z.literal('text'), text: z.string().max(MAX_MESSAGE) }))
      .min(1)
      .max(100),
  ]),
  run: z.boolean().optional(),
});
export type SendMessageInput = z.input<typeof sendMessageInputSchema>;

/** The text of a message in any accepted shape; `null` when it has none. */
export function messageText(message: string | z.output<typeof sendMessageInputSchema> | null | undefined): string | null {
  if (message == null) return null;
  if (typeof message === 'string') return message;
  const text = typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('\n');
  return text.trim() === '' ? null : text.slice(0, MAX_MESSAGE);
}

/** Body of `POST /api/conversations/{id}/events/respond_to_confirmation`. */
export const confirmationResponseSchema = z.object({ accept: z.boolean(), reason: z.string().max(2000).nullish() });

/** Body of `POST /api/v1/app-conversations`. */
export const startConversationInputSchema = z.object({
  /** The first message: the agent's task. A string, or OpenHands' `SendMessageRequest` (`{ role, content, run }`). */
  initial_message: z.union([z.string().min(1).max(MAX_MESSAGE), sendMessageInputSchema]).nullish(),
  title: z.string().max(500).nullish(),
  selected_repository: z.string().max(500).nullish(),
  selected_branch: z.string().max(200).nullish(),
  git_provider: z.string().max(50).nullish(),
  llm_model: z.string().max(200).nullish(),
  sandbox_spec_id: z.string().max(200).nullish(),
});
export type StartConversationInput = z.input<typeof startConversationInputSchema>;

/**
 * Body of `PATCH /api/v1/app-conversations/{id}` (OpenHands' `AppConversationUpdateRequest`):
 * `title` renames (`null` clears it). `public` is refused (422): this platform does not share
 * conversations publicly.
 */
export const appConversationUpdateInputSchema = z.strictObject({
  title: z.string().trim().min(1).max(500).nullish(),
  public: z.boolean().optional(),
});
export type AppConversationUpdateInput = z.input<typeof appConversationUpdateInputSchema>;
