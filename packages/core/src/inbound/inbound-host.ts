/**
 * What the platform reads in an event from a host where a team works — GitHub, GitLab, Bitbucket,
 * Slack — whatever the host: who wrote it and what ({@link EventActor}), and the thread it was
 * written in ({@link InboundThread}), keyed so that one conversation belongs to one thread. One
 * adapter per host, each a file of pure functions over the payload as that host sends it; the
 * answer-back (how to answer in the thread) is the other half, in the `AnswerHost` port.
 * @module
 */
import type { HostSourceKind } from '../schemas/webhook.js';

/** The hosts events are read from: GitHub (built in) and the hosts a team registers as sources. */
export type InboundHostName = 'github' | HostSourceKind;

/**
 * Who wrote a host's event, and what: the sender's login and whether it is a bot, GitHub's
 * `author_association` when the event's text is the sender's own, the text itself, and whether
 * the platform wrote it (its hidden marker, or the host's word for it).
 */
export interface EventActor {
  /** The sender's login; `null` when the event names none. */
  login: string | null;
  /** A bot: GitHub's `type: "Bot"`, or a login ending in `[bot]`; each host's own signs of one. */
  bot: boolean;
  /** GitHub's `author_association` of the sender's own text (`OWNER`, `MEMBER`, `COLLABORATOR`, `NONE`, ...); `null` when unknown. */
  association: string | null;
  /** The text the sender wrote with this event (comment, review, issue or pull request body, note, message); `null` for none. */
  text: string | null;
  /** What the sender wrote from on GitHub: the comment's id and kind, for a reply. */
  comment: { kind: 'issue_comment' | 'review_comment' | 'review'; id: number } | null;
  /** The host that sent the event; absent on GitHub's. */
  host?: InboundHostName;
  /** The host's stable id of the sender (a GitLab user id, a Bitbucket account id, a Slack user id); absent on GitHub. */
  id?: string | null;
  /** The platform wrote it, as the host tells (Slack: a message of the platform's own app), besides its hidden marker. */
  platform?: boolean;
  /** How the host wrote a mention of the agent in the text, when it says (Slack: `<@U…>` of the app's bot user). */
  mentionedAs?: string | null;
  /** The repository the event is in, when the payload's `repository.full_name` is not it (a GitLab project's path). */
  repository?: string | null;
  /** Slack: whether the sender belongs to the workspace the event came from (not another workspace of a shared channel). */
  inWorkspace?: boolean;
  /** Slack: the channel the event was written in (its id, `C…`), for an automation's `slack_channels`. */
  channel?: string | null;
  /**
   * The held action an approval answers, when the host names it (Slack's buttons carry it): an
   * answer to an action no longer held (a click on an older request) answers nothing.
   */
  answers?: string | null;
}

/** An event's name, or why it has none (the delivery is then recorded as ignored, with the reason). */
export type EventKeyResult = { ok: true; key: string } | { ok: false; reason: string };

/** Request headers as Node gives them: names lower-cased, repeated headers as arrays. */
export type InboundHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** A header's first value, trimmed; `null` when absent or empty. */
export function headerValue(headers: InboundHeaders, name: string): string | null {
  const value = headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : null;
}

/** Where an event was written. */
export interface InboundThread {
  host: InboundHostName;
  /**
   * The thread's key, one conversation per key: `github:owner/name#12`, `gitlab:group/project!7`
   * (a merge request; `#` an issue), `bitbucket:workspace/repo/pull-requests/3`,
   * `slack:T0001/C0002/1700000000.000100` (team, channel, the thread's first message).
   */
  key: string;
  /** As people name it: `group/project!7`, `workspace/repo#3`, `#C0002`. */
  label: string;
  /** The repository it is in (`owner/name`, a GitLab project path, `workspace/repo`); `null` in Slack. */
  repository: string | null;
  /**
   * Where in the thread the event was written, by the host's ids (a note and its discussion, a
   * comment and its parent, a message's channel and `ts`): what an answer replies to.
   */
  at: Record<string, string | number | null>;
}

/** The thread of an event, or why it has none (a push, a pipeline, a comment on a commit). */
export type InboundThreadResult = { thread: InboundThread } | { none: string };

export interface InboundHost {
  readonly host: InboundHostName;
  /** Who wrote the event and what they wrote. */
  actorOf(eventKey: string, payload: unknown): EventActor;
  /** The thread the event was written in. */
  threadOf(eventKey: string, payload: unknown): InboundThreadResult;
  /** Whether events of this key are a person's comment or message (their text a command). */
  isComment(eventKey: string): boolean;
  /** The event keys a `mention` trigger runs on when its automation names none. */
  readonly mentionEvents: readonly string[];
}

type Json = Record<string, unknown>;
/** `value` as a JSON object, or `null`. */
export const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
/** `value` as a non-empty string, or `null`. */
export const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
/** `value` as a positive safe integer, or `null`. */
export const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null);
/** A host's id as text: a string as it is, a positive integer in decimal; otherwise `null`. */
export const idText = (value: unknown): string | null => text(value) ?? (positive(value) === null ? null : String(value));
