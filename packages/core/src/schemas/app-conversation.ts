import { z } from 'zod';
import { timestampSchema } from './common.js';
import { sandboxStatusSchema } from './sandbox-spec.js';

export const CONVERSATION_TRIGGERS = ['gui', 'automation', 'api'] as const;
export const EXECUTION_STATUSES = ['idle', 'running', 'paused', 'finished', 'error', 'stopped'] as const;

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
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type AppConversation = z.infer<typeof appConversationSchema>;

export const appConversationRecordSchema = appConversationSchema.extend({
  org_id: z.string(),
  /** The automation run it belongs to, for trigger `automation`. */
  run_id: z.string().nullable(),
});
export type AppConversationRecord = z.infer<typeof appConversationRecordSchema>;

export const CONVERSATION_EVENT_KINDS = ['message', 'agent_output', 'agent_event', 'status'] as const;

/** Something that happened in a conversation: a message, the agent's output, a status change. */
export const conversationEventSchema = z.object({
  id: z.string(),
  conversation_id: z.string(),
  /** Position in the conversation, from 0, without gaps. */
  seq: z.number().int().min(0),
  kind: z.enum(CONVERSATION_EVENT_KINDS),
  source: z.enum(['user', 'agent', 'system']),
  /** The message text, for messages and plain agent output. */
  message: z.string().nullable(),
  /** A structured event (an agent's JSON line, a status change). */
  data: z.record(z.string(), z.unknown()).nullable(),
  created_at: timestampSchema,
});
export type ConversationEvent = z.infer<typeof conversationEventSchema>;

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
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type StartTask = z.infer<typeof startTaskSchema>;
export const startTaskRecordSchema = startTaskSchema.extend({ org_id: z.string() });
export type StartTaskRecord = z.infer<typeof startTaskRecordSchema>;

/** Body of `POST /api/v1/app-conversations`. */
export const startConversationInputSchema = z.object({
  /** The first message: the agent's task. A string, or `{ content }` as OpenHands clients send. */
  initial_message: z.union([z.string().min(1).max(50_000), z.object({ content: z.string().min(1).max(50_000) })]).nullish(),
  title: z.string().max(500).nullish(),
  selected_repository: z.string().max(500).nullish(),
  selected_branch: z.string().max(200).nullish(),
  git_provider: z.string().max(50).nullish(),
  llm_model: z.string().max(200).nullish(),
  sandbox_spec_id: z.string().max(200).nullish(),
});
export type StartConversationInput = z.input<typeof startConversationInputSchema>;
