/**
 * A conversation's live events over Server-Sent Events
 * (`GET /api/v1/app-conversations/{id}/events/stream`), read with `fetch` (Node 20+ and
 * browsers), reconnecting with `Last-Event-ID` after a dropped connection so that every event
 * is yielded once, in order.
 * @module
 */
import { AgentPlatformConnectionError, AgentPlatformError, isAgentPlatformError } from '../transport/errors.js';
import { RETRY_STATUS_CODES, type Transport } from '../transport/transport.js';
import type { ConversationEvent } from '../transport/types.js';
import { sleep } from '../iteration/polling.js';

export interface StreamEventsOptions {
  /** Stops the stream: the iteration rejects with the signal's reason. (`break` ends it quietly.) */
  signal?: AbortSignal;
  /** The first `seq` to yield; the events before it are skipped. Default 0: every stored event. */
  fromSeq?: number;
  /**
   * Delay before reconnecting after an attempt that brought no event, in ms, doubled after each
   * such attempt in a row (up to 30 s). A connection that brought events and then dropped is
   * taken up again at once. Default 1,000.
   */
  retryDelayMs?: number;
  /** Attempts in a row that bring no event before giving up. Default: never give up. */
  maxRetries?: number;
  /** Time to wait for the answer's headers on each attempt, in ms, or `false`; default the client's. */
  timeout?: number | false;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

const MAX_RETRY_DELAY_MS = 30_000;
const ROUTE = 'GET /api/v1/app-conversations/{id}/events/stream';

/**
 * The conversation's events, oldest first from `fromSeq`, then each new one as it is stored,
 * until the signal aborts or the loop breaks. A dropped connection (a network failure, the
 * server restarting, a 5xx/408/429 answer) is retried after a delay, resuming after the last
 * event yielded; an answer that cannot change by retrying (401, 404, 422) rejects with
 * `AgentPlatformError`, and `maxRetries` failed attempts in a row with the last failure.
 * @example
 * ```ts
 * const controller = new AbortController();
 * for await (const event of streamConversationEvents(transport, conversationId, { signal: controller.signal })) {
 *   console.log(event.seq, event.kind, event.message);
 *   if (event.kind === 'status') break;
 * }
 * ```
 */
export async function* streamConversationEvents(
  transport: Transport,
  conversationId: string,
  options: StreamEventsOptions = {},
): AsyncGenerator<ConversationEvent, void, undefined> {
  const { signal } = options;
  const firstDelay = options.retryDelayMs ?? 1_000;
  const maxRetries = options.maxRetries ?? Number.POSITIVE_INFINITY;
  let nextSeq = Math.max(0, Math.floor(options.fromSeq ?? 0));
  let failures = 0;
  for (;;) {
    signal?.throwIfAborted();
    let failure: unknown;
    let progressed = false;
    try {
      const headers: Record<string, string> = { ...options.headers, ...(nextSeq > 0 ? { 'last-event-id': String(nextSeq - 1) } : {}) };
      const response = await transport.open(
        ROUTE,
        { params: { id: conversationId }, headers },
        { ...(signal ? { signal } : {}), ...(options.timeout !== undefined ? { timeout: options.timeout } : {}) },
      );
      if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
        // Something else answered (a proxy's page, a server without the route): retrying will not help.
        await response.body?.cancel().catch(() => {});
        throw new AgentPlatformError({
          status: response.status,
          detail: 'The answer is not an event stream',
          method: 'GET',
          url: response.url || transport.url(ROUTE, { id: conversationId }),
        });
      }
      for await (const message of readServerSentEvents(response)) {
        if (message.data === '' || message.id === undefined) continue;
        const event = JSON.parse(message.data) as ConversationEvent;
        // Never one twice: a resumed stream starts after the last one yielded.
        if (event.seq < nextSeq) continue;
        nextSeq = event.seq + 1;
        progressed = true;
        yield event;
      }
      // The server ended the stream (it is shutting down, or this client fell too far behind).
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      if (!retryable(error)) throw error;
      failure = error;
    }
    // A connection that brought events is taken up again at once; failures in a row back off.
    if (progressed) {
      failures = 0;
      continue;
    }
    failures += 1;
    if (failures > maxRetries) throw asConnectionError(failure, transport.url(ROUTE, { id: conversationId }));
    await sleep(Math.min(MAX_RETRY_DELAY_MS, firstDelay * 2 ** (failures - 1)), signal);
  }
}

/** Whether another attempt may succeed: not for answers that say the request itself is wrong. */
function retryable(error: unknown): boolean {
  if (isAgentPlatformError(error)) return (RETRY_STATUS_CODES as readonly number[]).includes(error.status) || error.status >= 500;
  // A network failure, a timeout, a stream cut midway, a message that did not parse.
  return true;
}

function asConnectionError(failure: unknown, url: string): unknown {
  if (failure === undefined) return new AgentPlatformConnectionError('network', 'GET', url, `GET ${url}: the stream kept ending`);
  if (isAgentPlatformError(failure) || failure instanceof AgentPlatformConnectionError) return failure;
  const reason = failure instanceof Error ? `: ${failure.message}` : '';
  return new AgentPlatformConnectionError('network', 'GET', url, `GET ${url}: the stream broke${reason}`, failure);
}

/** One dispatched Server-Sent Events message. */
export interface ServerSentMessage {
  id?: string;
  event?: string;
  data: string;
}

/**
 * The messages of a `text/event-stream` body, parsed per the WHATWG format (`data`, `event`,
 * `id` fields; comments and `retry` skipped). The body is cancelled when the iteration stops,
 * which closes the connection.
 */
export async function* readServerSentEvents(response: Response): AsyncGenerator<ServerSentMessage, void, undefined> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let first = true;
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (first && buffer.length > 0) {
        if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
        first = false;
      }
      for (;;) {
        const end = lineEnd(buffer, done);
        if (end === null) break;
        const line = buffer.slice(0, end.index);
        buffer = buffer.slice(end.index + end.length);
        if (line === '') {
          if (data.length > 0) {
            const message: ServerSentMessage = { data: data.join('\n') };
            if (id !== undefined) message.id = id;
            if (event !== undefined) message.event = event;
            yield message;
          }
          data = [];
          event = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let fieldValue = colon < 0 ? '' : line.slice(colon + 1);
        if (fieldValue.startsWith(' ')) fieldValue = fieldValue.slice(1);
        if (field === 'data') data.push(fieldValue);
        else if (field === 'event') event = fieldValue;
        else if (field === 'id' && !fieldValue.includes('\0')) id = fieldValue;
      }
      // A message not ended by a blank line is dropped, as the format says.
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Where the first line of `buffer` ends (CRLF, LF or CR); a CR at the very end waits for more, in case an LF follows. */
function lineEnd(buffer: string, done: boolean): { index: number; length: number } | null {
  const lf = buffer.indexOf('\n');
  const cr = buffer.indexOf('\r');
  if (cr < 0 || (lf >= 0 && lf < cr)) return lf < 0 ? null : { index: lf, length: 1 };
  if (cr + 1 < buffer.length) return { index: cr, length: buffer.charCodeAt(cr + 1) === 10 ? 2 : 1 };
  return done ? { index: cr, length: 1 } : null;
}
