/**
 * Server-Sent Events on the wire: messages formatted per the WHATWG `text/event-stream` format,
 * a `retry:` hint first, and a `: ping` comment whenever the stream has been idle for the
 * heartbeat interval (proxies close connections that stay silent; a client notices a dead one).
 * @module
 */
import type { HttpResponse, ServerSentEvent } from '../exchange/types.js';

/** Default heartbeat: a `: ping` comment after 15 s without a message. */
export const DEFAULT_SSE_HEARTBEAT_MS = 15_000;

/** The reconnection delay suggested to `EventSource` clients, in ms. */
export const SSE_RETRY_MS = 3_000;

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // nginx buffers proxied answers unless told not to.
  'x-accel-buffering': 'no',
});

const LINE_BREAK = /\r\n|\r|\n/;
/** A field value may not hold a line break (it would end the field). */
const oneLine = (value: string) => value.replace(/[\r\n]/g, ' ');

/** One message as `text/event-stream` text, ending with the blank line that dispatches it. */
export function formatServerSentEvent(message: ServerSentEvent): string {
  let text = '';
  if (message.id !== undefined) text += `id: ${oneLine(message.id).replace(/\0/g, '')}\n`;
  if (message.event !== undefined) text += `event: ${oneLine(message.event)}\n`;
  for (const line of message.data.split(LINE_BREAK)) text += `data: ${line}\n`;
  return `${text}\n`;
}

type Step = { kind: 'message'; result: IteratorResult<ServerSentEvent> } | { kind: 'idle' } | { kind: 'closed' };

/**
 * The SSE text for a source of messages: `retry:` first, then each message, and `: ping` after
 * `heartbeatMs` without one. Pulled by the binding, so a slow client slows the reading of the
 * source (which decides what to do about it). `return()` settles at once and returns the source.
 */
export function serverSentEventText(source: AsyncIterable<ServerSentEvent>, heartbeatMs: number): AsyncIterableIterator<string> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<Step> | null = null;
  let started = false;
  let closed = false;
  let wakeOnClose: (() => void) | null = null;
  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };

  const text: AsyncIterableIterator<string> = {
    async next(): Promise<IteratorResult<string>> {
      if (closed) return done;
      if (!started) {
        started = true;
        return { done: false, value: `retry: ${SSE_RETRY_MS}\n\n` };
      }
      pending ??= iterator.next().then((result): Step => ({ kind: 'message', result }));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<Step>((resolve) => {
        if (heartbeatMs > 0) timer = setTimeout(() => resolve({ kind: 'idle' }), heartbeatMs);
      });
      const closing = new Promise<Step>((resolve) => {
        wakeOnClose = () => resolve({ kind: 'closed' });
      });
      let step: Step;
      try {
        step = await Promise.race([pending, idle, closing]);
      } catch (error) {
        closed = true;
        throw error;
      } finally {
        clearTimeout(timer);
        wakeOnClose = null;
      }
      if (closed || step.kind === 'closed') return done;
      if (step.kind === 'idle') return { done: false, value: ': ping\n\n' };
      pending = null;
      if (step.result.done) {
        closed = true;
        return done;
      }
      return { done: false, value: formatServerSentEvent(step.result.value) };
    },
    async return(): Promise<IteratorResult<string>> {
      if (!closed) {
        closed = true;
        wakeOnClose?.();
        // A pending next() of the source must not reject unheard.
        pending?.catch(() => {});
        await iterator.return?.();
      }
      return done;
    },
    [Symbol.asyncIterator]() {
      return text;
    },
  };
  return text;
}

/** A streamed `text/event-stream` answer. */
export function serverSentEventsResponse(
  status: number,
  source: AsyncIterable<ServerSentEvent>,
  heartbeatMs: number,
  headers: Record<string, string> = {},
): HttpResponse {
  return { status, headers: { ...SSE_HEADERS, ...headers }, body: null, stream: serverSentEventText(source, heartbeatMs) };
}
