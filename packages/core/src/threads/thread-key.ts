/**
 * A thread's key: the code host, the repository (in lower case: names are case-insensitive) and
 * the or pull request's number — `github:owner/name#12`. A review comment's thread is its
 * pull request's: the conversation is the pull request's, the reply goes to the review thread.
 * @module
 */
import { eventThread } from '../github/event-thread.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';

export const threadKey = (repository: string, number: number): string => `${GITHUB_SOURCE}:${repository.toLowerCase()}#${number}`;

/** The thread of a code-host event, or `null` for an event that has none (a push, a release). */
export function threadKeyOf(source: string, eventKey: string, payload: unknown): string | null {
  if (source !== GITHUB_SOURCE) return null;
  const found = eventThread(eventKey, payload);
  return 'thread' in found ? threadKey(found.thread.repository, found.thread.number) : null;
}

/** The repository and number a key names. */
export function parseThreadKey(key: string): { repository: string; number: number } | null {
  const found = /^github:([^#]+)#(\d+)$/.exec(key);
  return found ? { repository: found[1] as string, number: Number(found[2]) } : null;
}
