/**
 * GitHub on the inbound side, as it has always been read: the actor of `threads/event-actor.ts`
 * and the thread of `github/event-thread.ts`, behind the same {@link InboundHost} as the other
 * hosts. Nothing here changes how a GitHub event is read.
 * @module
 */
import { eventThread } from '../github/event-thread.js';
import { eventActor, isCommentEvent } from './event-actor.js';
import { threadKey } from './thread-key.js';
import { MENTION_EVENTS } from './thread-trigger.js';
import type { InboundHost } from '../inbound/inbound-host.js';

export const githubInbound: InboundHost = {
  host: 'github',
  actorOf: eventActor,
  threadOf(eventKey, payload) {
    const found = eventThread(eventKey, payload);
    if ('none' in found) return found;
    const { repository, number, reactTo } = found.thread;
    const at: Record<string, string | number | null> = reactTo.kind === 'issue' ? { number } : { number, comment_kind: reactTo.kind, comment_id: reactTo.id };
    return { thread: { host: 'github', key: threadKey(repository, number), label: `${repository}#${number}`, repository, at } };
  },
  isComment: isCommentEvent,
  // Read when asked, not when this module loads (the trigger rules and this module import each other).
  get mentionEvents() {
    return MENTION_EVENTS;
  },
};
