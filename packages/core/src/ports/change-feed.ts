/**
 * The change feed port: processes sharing one storage tell each other, at once,
 * what they changed that others act on — new PENDING runs (a worker starts them without waiting
 * for its poll), a cancelled run (the process running it stops its agent), an automation created,
 * changed or deleted (every process's matching index drops that org and source). PostgreSQL
 * carries it over `LISTEN/NOTIFY`; memory storage calls its subscribers in process.
 *
 * The feed is a wake-up, not a log: a change may be missed while a listener reconnects, and then
 * subscribers get a `reset` and must assume anything changed. Polls and time limits stay as the
 * safety net behind it.
 * @module
 */

export type StorageChange =
  /** Runs became PENDING (created, retried, handed back): executors should claim. */
  | { type: 'runs.pending' }
  /** A run was cancelled: whoever executes it stops. */
  | { type: 'run.cancelled'; orgId: string; runId: string }
  /** An automation of this org and trigger source was created, changed or deleted. */
  | { type: 'automations.changed'; orgId: string; source: string }
  /** A webhook source of this org was registered, changed, rotated or deleted. */
  | { type: 'webhooks.changed'; orgId: string }
  /** A GitHub installation or account was linked to an org, or unlinked. */
  | { type: 'github-links.changed' }
  /** Events were appended to a conversation, up to `seq`: live streams read on from where they are. */
  | { type: 'conversation.events'; conversationId: string; seq: number }
  /**
   * Someone asked a conversation's agent to do something (a follow-up message, pause, a
   * confirmation answer): the process running it reads the conversation's state and acts.
   */
  | { type: 'conversation.control'; conversationId: string }
  /** Changes may have been missed (the listener reconnected): re-read everything cached. */
  | { type: 'reset' };

/** What a process announces; `reset` comes only from the feed itself. */
export type PublishedChange = Exclude<StorageChange, { type: 'reset' }>;

export type ChangeListener = (change: StorageChange) => void;

export interface ChangeFeed {
  /**
   * Announces a change to every subscriber of every adapter over the same backend, this one's
   * included. Call it after the change committed. Resolves once sent; throws
   * `StorageUnavailableError` when the backend cannot be reached (callers treat it as best effort).
   */
  publish(change: PublishedChange): Promise<void>;
  /**
   * Calls `listener` for each change published from when this resolves on, asynchronously and
   * never inside the publisher's call. Resolves with a function that stops the subscription.
   * A listener that throws does not stop the others.
   */
  subscribe(listener: ChangeListener): Promise<() => Promise<void>>;
}
