/**
 * A conversation's live events as an async iterator, for the streams (SSE and WebSocket): the
 * platform's event watcher feeding a {@link LiveQueue}. Stopping the iterator stops the watcher.
 * @module
 */
import type { AgentPlatform, ConversationEvent, Principal } from '@agent-platform/core';
import { LiveQueue } from './live-queue.js';

/**
 * Most events held for a stream whose client reads slower than they are stored. Past it the
 * stream ends after what is held; an SSE client resumes from its `Last-Event-ID` and misses
 * nothing, and a socket is closed with 1013 (try again later).
 */
export const MAX_QUEUED_EVENTS = 10_000;

/**
 * The conversation's events with `seq >= fromSeq`, in order, then each new one as it is stored.
 * Rejects (404 `PlatformError`) before anything is watched when the conversation is not the
 * caller's.
 */
export async function conversationEvents(
  platform: AgentPlatform,
  principal: Principal,
  conversationId: string,
  fromSeq: number,
  maxQueued = MAX_QUEUED_EVENTS,
): Promise<LiveQueue<ConversationEvent>> {
  let stop: (() => void) | undefined;
  let stopped = false;
  const queue = new LiveQueue<ConversationEvent>({
    maxItems: maxQueued,
    onClose: () => {
      stopped = true;
      stop?.();
    },
  });
  stop = await platform.conversations.watchEvents(principal, conversationId, fromSeq, (event) => queue.push(event));
  // The queue may have been closed (or overflowed) before the stop function came back.
  if (stopped) stop();
  return queue;
}

/** The `seq` the next stored event of the caller's conversation will have (404 when it is not theirs). */
export function nextEventSeq(platform: AgentPlatform, principal: Principal, conversationId: string): Promise<number> {
  return platform.conversations.countEvents(principal, conversationId);
}

/** A stand-in for an event `JSON.stringify` cannot serialize (stored nested too deep). */
export function serializeEvent(event: ConversationEvent, shape: (event: ConversationEvent) => unknown = (value) => value): string {
  try {
    return JSON.stringify(shape(event));
  } catch {
    return JSON.stringify(shape({ ...event, data: { unserializable: true } }));
  }
}
