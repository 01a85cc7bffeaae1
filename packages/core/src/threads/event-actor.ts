/**
 * Who wrote a code-host event, and what they wrote: the sender's login and type, GitHub's
 * `author_association` when the event's text is the sender's own (a comment, a review, a new
 * issue or pull request), the text itself, and whether the platform wrote it (its hidden marker,
 * which every comment, pull request and outcome the platform writes carries).
 * @module
 */

import { PLATFORM_MARKER } from '../github/platform-marker.js';
import type { EventActor } from '../inbound/inbound-host.js';

export type { EventActor } from '../inbound/inbound-host.js';

/** Events a person writes to ask for something: their text is a command. */
const COMMENT_EVENTS = new Set(['issue_comment', 'pull_request_review_comment', 'pull_request_review', 'commit_comment', 'discussion_comment']);

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const string = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null);

/** Whether an event of this key is a person's comment (its text a command). */
export const isCommentEvent = (eventKey: string): boolean => COMMENT_EVENTS.has(eventKey.split('.')[0] ?? '');

/** The text an event carries, with who wrote it, by the event's kind. */
type CommentKind = NonNullable<EventActor['comment']>['kind'];

function authored(event: string, body: Json): { item: Json | null; kind: CommentKind | null } {
  if (event === 'issue_comment' || event === 'commit_comment' || event === 'discussion_comment') return { item: object(body.comment), kind: 'issue_comment' };
  if (event === 'pull_request_review_comment') return { item: object(body.comment), kind: 'review_comment' };
  if (event === 'pull_request_review') return { item: object(body.review), kind: 'review' };
  if (event === 'issues') return { item: object(body.issue), kind: null };
  if (event === 'pull_request') return { item: object(body.pull_request), kind: null };
  return { item: null, kind: null };
}

export function eventActor(eventKey: string, payload: unknown): EventActor {
  const body = object(payload) ?? {};
  const [event = '', action = ''] = eventKey.split('.');
  const sender = object(body.sender);
  const login = string(sender?.login);
  const bot = string(sender?.type) === 'Bot' || (login?.endsWith('[bot]') ?? false);
  const { item, kind } = authored(event, body);
  // The text is the sender's own only when they wrote it now: a label added to someone else's issue is not.
  const own = item !== null && (kind !== null || action === 'opened' || action === 'edited');
  const author = string(object(item?.user)?.login);
  const sameAuthor = own && (author === null || login === null || author.toLowerCase() === login.toLowerCase());
  const id = positive(item?.id);
  return {
    login,
    bot,
    association: sameAuthor ? string(item?.author_association) : null,
    text: own ? string(item?.body) : null,
    comment: kind && id ? { kind, id } : null,
  };
}

/** Whether the platform wrote this text (an outcome comment, an "on it", the agent's comments and pull requests). */
export const writtenByPlatform = (text: string | null): boolean => text?.includes(PLATFORM_MARKER) ?? false;

/** Whether the platform wrote what the actor sent: its hidden marker in the text, or the host says so (Slack: its own app). */
export const sentByPlatform = (actor: Pick<EventActor, 'text' | 'platform'>): boolean => actor.platform === true || writtenByPlatform(actor.text);
