/**
 * The answer-back port: how a run answers where its event was written. One adapter per code host
 * or chat (GitHub built in; GitLab, Bitbucket, Slack beside it); the run reporter — the
 * acknowledgement, the run's one comment ("on it", then the outcome, edited in place), approval
 * requests — speaks only this, so a host is added by writing an adapter, not by touching the
 * run's lifecycle.
 *
 * An adapter reads two things: where an event was written (its {@link AnswerThread}, from the
 * delivery's event key and payload, or why it has none) and how to answer there with the
 * automation owner's credentials (an {@link AnswerChannel}, or why not: no token stored). Errors
 * of a channel are {@link HostError}s: the host's status and words, never the credential.
 * @module
 */
import type { AutomationRecord } from '../schemas/automation.js';
import type { AgentHostTools, AgentSettings } from './agent-runner.js';

/** Where an event was written, as its host names it. */
export interface AnswerThread {
  /** The adapter's name (`github`). */
  host: string;
  /** The thread as people name it, on the run's report: `acme/api#12`, `group/project!7`. */
  label: string;
  /** The repository (`owner/name`, a project path) the thread is in, when the host has repositories. */
  repository: string | null;
  /** What the event asks about (an issue's title and text), for the solvability estimate; `null` for none. */
  subject: { title: string; body: string } | null;
  /**
   * The adapter's own locator of the thread and of what to acknowledge (a comment's id, a
   * review thread): JSON, opaque to everyone but the adapter that made it.
   */
  locator: Record<string, unknown>;
}

/** A comment or message the platform posted. */
export interface PostedAnswer {
  /** The host's id of it (a number on GitHub, a timestamp string on Slack). */
  id: number | string;
  /** Where people see it. */
  url: string;
}

/** One thread, answered with the automation owner's credentials. */
export interface AnswerChannel {
  /** Says the run took the event on: 👀 on what asked (a comment, an issue), or the host's like. */
  acknowledge(): Promise<void>;
  /** A new comment in the thread (a reply, where the thread is a review or discussion thread). */
  post(body: string): Promise<PostedAnswer>;
  /** Replaces the body of an answer posted before; `null` when it is gone (someone deleted it). */
  edit(id: PostedAnswer['id'], body: string): Promise<PostedAnswer | null>;
  /**
   * The newest answer in the thread written since `since` (ISO time) whose body holds `marker`:
   * a run's comment posted by a worker that died before storing its id. `null` when none, or when
   * the host cannot search a thread.
   */
  find(marker: string, since: string): Promise<PostedAnswer | null>;
  /**
   * An approval request for the action the run holds (`held`), with the host's own way of
   * answering it (Slack's buttons; on a GitLab merge request, the answer written after the
   * automation's `mention`, since GitLab takes a bare `/approve` there as its own quick action).
   * Optional: without it the request is {@link post}ed, and people answer with `/approve` or
   * `/reject`.
   */
  askApproval?(body: string, held: { runId: string; actionId: string; mention?: string | null }): Promise<PostedAnswer>;
}

export interface AnswerHost {
  /** The adapter's name, as threads carry it (`github`). */
  readonly name: string;
  /** Whether deliveries recorded under `source` (a source's name) are this host's events. */
  handles(source: string): boolean;
  /** The thread an event was written in, or why it has none (a push has no thread). */
  threadOf(eventKey: string | null, payload: unknown): { thread: AnswerThread } | { none: string };
  /** How to answer in `thread` with the owner's credentials (their settings, decrypted), or why it cannot (no token stored). */
  channel(thread: AnswerThread, owner: { userId: string; settings: AgentSettings }): AnswerChannel | { none: string };
  /**
   * The agent's tools on this host (comment; where the host has them, label and open a pull or
   * merge request), with the owner's credentials, for a run whose event was written in
   * `input.thread` — or, with `thread: null`, for a run whose event was written in no thread of a
   * host (a manual dispatch, a push, a custom source's event), where a host may give tools for the
   * repositories the automation names on it. `null`: none (no credentials, nothing to reach).
   * Absent: runs of this host's events get no host tools.
   */
  agentTools?(input: HostToolsInput): AgentHostTools | null;
}

/** A pull or merge request the agent opened: where, and from which branch. */
export interface OpenedChangeRequest {
  repository: string;
  number: number;
  url: string;
  head: string;
}

/** A comment the agent posted or labels it added, for the audit log. */
export type HostThreadAction =
  | { type: 'comment'; repository: string; number: number; url: string }
  | { type: 'labels'; repository: string; number: number; labels: string[] };

/** What a run's host tools may reach and whom they tell. */
export interface HostToolsInput {
  /** The thread the run's event was written in, on this host; `null` when it was written in none. */
  thread: AnswerThread | null;
  /** The repositories the tools may act on, the first the default: the thread's, and the automation's `selected_repository` (as the automation writes it: a host reads the names that are its own). */
  repositories: string[];
  /** What else the automation allows the tools to reach: GitHub's `github_repositories`. Absent reads as nothing more. */
  automation?: Pick<AutomationRecord, 'github_repositories'>;
  owner: { userId: string; settings: AgentSettings };
  /** The pull or merge request the run's conversation thread has already (a follow-up's): the agent pushes to it, and a second is refused. */
  pullRequest: { repository: string; number: number; url: string | null; branch: string | null } | null;
  /** Told of each pull or merge request the agent opens, so its thread keeps it. */
  onPullRequest(opened: OpenedChangeRequest): Promise<void>;
  /** Told of each comment the agent posts and each set of labels it adds (the audit log). */
  onThreadAction(action: HostThreadAction): Promise<void>;
}

/** A host call that failed: its HTTP status (`null`: the host was not reached) and why, in words a user acts on. */
export class HostError extends Error {
  override name = 'HostError';
  constructor(
    /** The adapter's name. */
    readonly host: string,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }

  /** Down, overloaded or unreachable: worth asking again later; a refusal is not. */
  get transient(): boolean {
    return this.status === null || this.status === 429 || this.status >= 500;
  }
}

/** `text` with the credential replaced by `***` wherever it stands (one shorter than 4 characters would scrub ordinary words, and is left). */
export function scrubCredential(text: string, credential: string): string {
  return credential.length >= 4 ? text.split(credential).join('***') : text;
}
