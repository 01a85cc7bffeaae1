/**
 * Who wrote a code-host event, and what they wrote: the sender's login and type, GitHub's
 * `author_association` when the event's text is the sender's own (a comment, a review, a new
 * issue or pull request), the text itself, and whether the platform wrote it (its hidden marker,
 * which every comment, pull request and outcome the platform writes carries).
 * @module
 */

import { PLATFORM_MARKER } from '../github/platform-marker.js';

/** Events a person writes to ask for something: their text is a command. */
const COMMENT_EVENTS = new Set(['issue_comment', 'pull_request_review_comment', 'pull_request_review', 'commit_comment', 'discussion_comment']);

export interface EventActor {
  /** The sender's login; `null` when the event names none. */
  login: string | null;
  /** A bot: GitHub's `type: "Bot"`, or a login ending in `[bot]`. */
  bot: boolean;
  /** GitHub's `author_association` of the sender's own text (`OWNER`, `MEMBER`, `COLLABORATOR`, `NONE`, ...); `null` when unknown. */
  association: string | null;
  /** The text the sender wrote with this event (comment, review, issue or pull request body); `null` for none. */
  text: string | null;
  /** What the sender wrote from: the comment's id and kind, for a reply. */
  comment: { kind: 'issue_comment' | 'review_comment' | 'review'; id: number } | null;
}

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
