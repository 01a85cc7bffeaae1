import { conversationEventSchema, validationError, type ConversationEvent } from '@agent-platform/core';
import { z } from 'zod';
import { conversationEvents, serializeEvent } from '../streaming/conversation-events.js';
import { defineRoute } from '../routing/define-route.js';
import type { HeaderValue, ServerSentEvent } from '../exchange/types.js';
import { invalid, notFoundDoc, unauthorized } from './shared-responses.js';

/** An event id as this stream hands them out: a `seq`, in decimal. */
const SEQ = /^(0|[1-9][0-9]{0,14})$/;

const firstValue = (value: HeaderValue): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * The first seq to send: one past the `Last-Event-ID` header (what `EventSource` sends when it
 * reconnects), else past `?last_event_id=` (for a first connection that resumes: `EventSource`
 * cannot set headers), else 0. 422 for an id this stream never handed out.
 */
export function resumeSeq(headers: Record<string, HeaderValue>, lastEventId: string | undefined): number {
  const header = firstValue(headers['last-event-id'])?.trim();
  const [value, loc] = header ? [header, ['header', 'last-event-id']] : [lastEventId?.trim(), ['query', 'last_event_id']];
  if (!value) return 0;
  if (!SEQ.test(value)) throw validationError(loc, 'must be the id of an event of this stream (its seq: a whole number, 0 or more)');
  return Number(value) + 1;
}

const toMessage = (event: ConversationEvent): ServerSentEvent => ({ id: String(event.seq), event: event.kind, data: serializeEvent(event) });

/** Live streams of a conversation's events. The WebSocket one is not a route: see `event-sockets.ts`. */
export const eventStreamRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: '/api/v1/app-conversations/{id}/events/stream',
    operationId: 'streamAppConversationEvents',
    summary:
      'The conversation’s events as Server-Sent Events: the stored ones from the start (or after `Last-Event-ID` / `last_event_id`), then each new one as it is stored. Each message is `id: <seq>`, `event: <kind>`, `data: <the event as JSON>`; `: ping` comments keep an idle stream open',
    tag: 'app-conversations',
    conversationKey: true,
    query: z.object({
      last_event_id: z.string().optional().describe('Resume after this event id (a seq); the `Last-Event-ID` header wins when both are sent'),
    }),
    responses: {
      200: {
        description: 'A `text/event-stream` of conversation events, open until the client closes it',
        schema: conversationEventSchema,
        contentType: 'text/event-stream',
      },
      401: unauthorized,
      404: notFoundDoc,
      422: invalid,
    },
    async handle({ platform, principal, params, query, headers }) {
      const fromSeq = resumeSeq(headers, query.last_event_id);
      const events = await conversationEvents(platform, principal, params.id, fromSeq);
      return { status: 200, events: mapIterator(events, toMessage) };
    },
  }),
] as const;

/** `source` with each item mapped; `return()` passes straight through (it must settle at once). */
function mapIterator<T, U>(source: AsyncIterableIterator<T>, map: (item: T) => U): AsyncIterableIterator<U> {
  const mapped: AsyncIterableIterator<U> = {
    next: async () => {
      const result = await source.next();
      return result.done ? { done: true, value: undefined } : { done: false, value: map(result.value) };
    },
    return: async () => {
      await source.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => mapped,
  };
  return mapped;
}
