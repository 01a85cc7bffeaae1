import { AgentPlatformWaitError } from '../errors.js';
import { cursorIterator, type IterateOptions } from '../paging.js';
import { pollUntil, type WaitOptions } from '../polling.js';
import type { CallOptions, Transport } from '../transport.js';
import type {
  AppConversation,
  AppConversationPage,
  ConversationEventPage,
  CursorQueryInput,
  StartConversationInput,
  StartTask,
  StartTaskPage,
} from '../types.js';
import { batched, oneById } from './batch.js';

/** A start task that reached READY: its conversation and sandbox ids are set. */
export type ReadyStartTask = StartTask & { status: 'READY'; app_conversation_id: string };

/** The caller's app conversations (`/api/v1/app-conversations`). */
export function conversationsNamespace(transport: Transport) {
  const list = (query: CursorQueryInput = {}, options?: CallOptions) => transport.call<AppConversationPage>('listAppConversations', { query }, options);
  const events = (id: string, query: CursorQueryInput = {}, options?: CallOptions) =>
    transport.call<ConversationEventPage>('listAppConversationEvents', { params: { id }, query }, options);
  const startTasks = (ids: readonly string[], options?: CallOptions) =>
    batched(ids, (chunk) => transport.call<(StartTask | null)[]>('batchGetStartTasks', { query: { ids: chunk } }, options));
  return {
    /**
     * Starts a conversation and answers its start task at once; the sandbox and the agent follow
     * in the background (`waitUntilReady` follows them).
     */
    start: (input: StartConversationInput = {}, options?: CallOptions) => transport.call<StartTask>('startAppConversation', { json: input }, options),
    /** A page of the caller's conversations, newest first (`page_id`, `limit` 1–100). */
    list,
    /** The same page from `/search`. */
    search: (query: CursorQueryInput = {}, options?: CallOptions) => transport.call<AppConversationPage>('searchAppConversations', { query }, options),
    /** Every conversation of the caller, page by page. */
    iterate: (options?: IterateOptions) => cursorIterator(list, options),
    get: (id: string, options?: CallOptions) => transport.call<AppConversation>('getAppConversation', { params: { id } }, options),
    /** Conversations by id, in order; `null` for one the caller cannot see. Any number of ids. */
    getMany: (ids: readonly string[], options?: CallOptions) =>
      batched(ids, (chunk) => transport.call<(AppConversation | null)[]>('listAppConversations', { query: { ids: chunk } }, options)),
    /** A page of the conversation's events, oldest first. */
    events,
    /** Every event of the conversation, oldest first, page by page. */
    iterateEvents: (id: string, options?: IterateOptions) => cursorIterator((page, call) => events(id, page, call), options),
    /** Start tasks by id, in order; `null` for one the caller cannot see. */
    startTasks,
    /** A page of the caller's start tasks, newest first. */
    searchStartTasks: (query: CursorQueryInput = {}, options?: CallOptions) => transport.call<StartTaskPage>('searchStartTasks', { query }, options),
    /**
     * Polls a start task until it is READY and answers it (with `app_conversation_id`). Throws
     * `AgentPlatformWaitError` with `reason: 'failed'` when it ends in ERROR (its `detail` says
     * why) and `reason: 'timeout'` when `timeoutMs` passes first; a 404 `AgentPlatformError` when
     * the caller has no such task.
     */
    waitUntilReady: async (taskId: string, options: WaitOptions = {}): Promise<ReadyStartTask> => {
      const task = await pollUntil(
        (signal) => oneById(transport, 'batchGetStartTasks', 'Start task', startTasks, taskId, signal ? { signal } : {}),
        (current) => current.status === 'READY' || current.status === 'ERROR',
        options,
        (last) =>
          new AgentPlatformWaitError('timeout', { kind: 'start-task', last }, `Start task ${taskId} was still ${last?.status ?? 'unknown'} after ${options.timeoutMs ?? 300_000} ms`),
      );
      if (task.status === 'ERROR') {
        throw new AgentPlatformWaitError('failed', { kind: 'start-task', last: task }, `Conversation start failed: ${task.detail ?? 'no detail'}`);
      }
      return task as ReadyStartTask;
    },
  };
}
