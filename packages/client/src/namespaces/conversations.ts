import { AgentPlatformError, AgentPlatformWaitError } from '../transport/errors.js';
import { cursorIterator, type IterateOptions } from '../iteration/paging.js';
import { pollUntil, type WaitOptions } from '../iteration/polling.js';
import type { CallOptions, Transport } from '../transport/transport.js';
import type { CursorQueryInput, SendMessageInput, StartConversationInput, StartTask } from '../transport/types.js';
import { batched, oneById } from './batch.js';
import { streamConversationEvents, type StreamEventsOptions } from '../conversation-events/event-stream.js';

/** A start task that reached READY: its conversation and sandbox ids are set. */
export type ReadyStartTask = StartTask & { status: 'READY'; app_conversation_id: string };

/** The caller's app conversations (`/api/v1/app-conversations`). */
export function conversationsNamespace(transport: Transport) {
  // `GET /api/v1/app-conversations` answers a list by id with `ids=`, else a page: its declared
  // answer is the union of the two, told apart here by shape (no cast: a wrong one is an error).
  const LIST = 'GET /api/v1/app-conversations';
  const list = async (query: CursorQueryInput = {}, options?: CallOptions) => {
    const answer = await transport.call(LIST, { query }, options);
    if (Array.isArray(answer)) throw unexpectedAnswer(transport.url(LIST), 'a page');
    return answer;
  };
  const events = (id: string, query: CursorQueryInput = {}, options?: CallOptions) =>
    transport.call('GET /api/v1/app-conversations/{id}/events', { params: { id }, query }, options);
  const startTasks = (ids: readonly string[], options?: CallOptions) =>
    batched(ids, (chunk) => transport.call('GET /api/v1/app-conversations/start-tasks', { query: { ids: chunk } }, options));
  return {
    /**
     * Starts a conversation and answers its start task at once; the sandbox and the agent follow
     * in the background (`waitUntilReady` follows them).
     */
    start: (input: StartConversationInput = {}, options?: CallOptions) => transport.call('POST /api/v1/app-conversations', { json: input }, options),
    /** A page of the caller's conversations, newest first (`page_id`, `limit` 1–100). */
    list,
    /** The same page from `/search`. */
    search: (query: CursorQueryInput = {}, options?: CallOptions) => transport.call('GET /api/v1/app-conversations/search', { query }, options),
    /** Every conversation of the caller, page by page. */
    iterate: (options?: IterateOptions) => cursorIterator(list, options),
    get: (id: string, options?: CallOptions) => transport.call('GET /api/v1/app-conversations/{id}', { params: { id } }, options),
    /** Renames the conversation (`null` clears the title) and answers it. */
    rename: (id: string, title: string | null, options?: CallOptions) =>
      transport.call('PATCH /api/v1/app-conversations/{id}', { params: { id }, json: { title } }, options),
    /** Deletes the conversation with its events and start task; its agent is stopped and its sandbox deleted (409 while its automation run is under way). */
    delete: (id: string, options?: CallOptions) => transport.call('DELETE /api/v1/app-conversations/{id}', { params: { id } }, options),
    /** The conversation as a zip (`meta.json` and one JSON file per event): a `Blob` of type `application/zip`. */
    download: (id: string, options?: CallOptions) => transport.call('GET /api/v1/app-conversations/{id}/download', { params: { id } }, options),
    /** The text of a file in the conversation's sandbox workspace (`filePath` relative to it, or absolute inside it; at most 10 MiB). */
    readFile: (id: string, filePath: string, options?: CallOptions) =>
      transport.call('GET /api/v1/app-conversations/{id}/file', { params: { id }, query: { file_path: filePath } }, options),
    /** Conversations by id, in order; `null` for one the caller cannot see. Any number of ids. */
    getMany: (ids: readonly string[], options?: CallOptions) =>
      batched(ids, async (chunk) => {
        const answer = await transport.call(LIST, { query: { ids: chunk } }, options);
        if (!Array.isArray(answer)) throw unexpectedAnswer(transport.url(LIST), 'a list');
        return answer;
      }),
    /** A page of the conversation's events, oldest first. */
    events,
    /** Every event of the conversation, oldest first, page by page. */
    iterateEvents: (id: string, options?: IterateOptions) => cursorIterator((page, call) => events(id, page, call), options),
    /**
     * A follow-up message (a string, or OpenHands' `{ role, content, run }`). With `run: true` an
     * idle agent takes the conversation up again with its whole history; a working agent reads it
     * between its steps either way.
     */
    send: (id: string, message: string | SendMessageInput, options?: CallOptions & { run?: boolean }) => {
      const { run, ...call } = options ?? {};
      const body = typeof message === 'string' ? { role: 'user' as const, content: message, ...(run === undefined ? {} : { run }) } : message;
      return transport.call('POST /api/conversations/{id}/events', { params: { id }, json: body }, call);
    },
    /** Takes the conversation up again with its whole history (409 when its agent is at work). */
    run: (id: string, options?: CallOptions) => transport.call('POST /api/conversations/{id}/run', { params: { id }, json: {} }, options),
    /** Stops the agent after its current step; the conversation becomes `paused`. */
    pause: (id: string, options?: CallOptions) => transport.call('POST /api/conversations/{id}/pause', { params: { id }, json: {} }, options),
    /** Accepts or rejects the action held for confirmation (409 when none is). */
    respond: (id: string, answer: { accept: boolean; reason?: string }, options?: CallOptions) =>
      transport.call('POST /api/conversations/{id}/events/respond_to_confirmation', { params: { id }, json: answer }, options),
    /** The agent's final answer: its `finish` message or last message; `""` before it gave one. */
    finalResponse: async (id: string, options?: CallOptions) =>
      (await transport.call('GET /api/conversations/{id}/agent_final_response', { params: { id } }, options)).response,
    /**
     * The conversation's events live, over Server-Sent Events: the stored ones from `fromSeq`,
     * then each new one as it is stored; after a dropped connection it reconnects with
     * `Last-Event-ID`, so nothing is missed or repeated. End it with `break` or the signal.
     */
    stream: (id: string, options?: StreamEventsOptions) => streamConversationEvents(transport, id, options),
    /** Start tasks by id, in order; `null` for one the caller cannot see. */
    startTasks,
    /** A page of the caller's start tasks, newest first. */
    searchStartTasks: (query: CursorQueryInput = {}, options?: CallOptions) =>
      transport.call('GET /api/v1/app-conversations/start-tasks/search', { query }, options),
    /**
     * Polls a start task until it is READY and answers it (with `app_conversation_id`). Throws
     * `AgentPlatformWaitError` with `reason: 'failed'` when it ends in ERROR (its `detail` says
     * why) and `reason: 'timeout'` when `timeoutMs` passes first; a 404 `AgentPlatformError` when
     * the caller has no such task.
     */
    waitUntilReady: async (taskId: string, options: WaitOptions = {}): Promise<ReadyStartTask> => {
      const task = await pollUntil(
        (signal) => oneById(transport.url('GET /api/v1/app-conversations/start-tasks'), 'Start task', startTasks, taskId, signal ? { signal } : {}),
        (current) => current.status === 'READY' || current.status === 'ERROR',
        options,
        (last) =>
          new AgentPlatformWaitError(
            'timeout',
            { kind: 'start-task', last },
            `Start task ${taskId} was still ${last?.status ?? 'unknown'} after ${options.timeoutMs ?? 300_000} ms`,
          ),
      );
      if (task.status === 'ERROR') {
        throw new AgentPlatformWaitError('failed', { kind: 'start-task', last: task }, `Conversation start failed: ${task.detail ?? 'no detail'}`);
      }
      return task as ReadyStartTask;
    },
  };
}

/** A 200 whose body has the other of an endpoint's two declared shapes. */
function unexpectedAnswer(url: string, expected: string): AgentPlatformError {
  return new AgentPlatformError({ status: 200, detail: `The answer is not ${expected}`, method: 'GET', url });
}
