/**
 * A thread's key: the host, where the thread is, and which one — `github:owner/name#12` (the
 * repository in lower case: names are case-insensitive, then the or pull request's
 * number), `gitlab:group/project!7`, `bitbucket:workspace/repo/pull-requests/3`,
 * `slack:T0001/C0002/1700000000.000100`. A review comment's thread is its pull request's: the
 * conversation is the pull request's, the reply goes to the review thread.
 * @module
 */
import { inboundHostOf } from './inbound-hosts.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';

export const threadKey = (repository: string, number: number): string => `${GITHUB_SOURCE}:${repository.toLowerCase()}#${number}`;

/** The thread of a code-host or chat event, or `null` for an event that has none (a push, a release) or a custom source's. */
export function threadKeyOf(source: string, eventKey: string, payload: unknown): string | null {
  const found = inboundHostOf(source)?.threadOf(eventKey, payload);
  return found && 'thread' in found ? found.thread.key : null;
}

/** The repository and number a GitHub thread's key names. */
export function parseThreadKey(key: string): { repository: string; number: number } | null {
  const found = /^github:([^#]+)#(\d+)$/.exec(key);
  return found ? { repository: found[1] as string, number: Number(found[2]) } : null;
}
