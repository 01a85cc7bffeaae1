/**
 * Where a GitHub event was written, so that a run it started can answer there: the repository,
 * the issue or pull request (its number is the thread's), and what to react to — the comment
 * that asked (an issue comment, a pull request review comment), or else the issue or pull request
 * itself. Events that have no such thread (a push, a release, a discussion, which GitHub's REST
 * API cannot comment on) have none, and say why.
 * @module
 */
import type { ReactionTarget } from './github-api.js';

export interface EventThread {
  /** `owner/name`. */
  repository: string;
  /** The issue's or pull request's number. */
  number: number;
  reactTo: ReactionTarget;
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null);

/** The thread of a GitHub event (`eventKey` is `issue_comment.created` and the like), or why it has none. */
export function eventThread(eventKey: string | null, payload: unknown): { thread: EventThread } | { none: string } {
  const event = (eventKey ?? '').split('.')[0] ?? '';
  const body = object(payload);
  const repository = object(body?.repository)?.full_name;
  if (typeof repository !== 'string' || !repository.includes('/')) return { none: `the ${event || 'GitHub'} event names no repository` };
  const issue = positive(object(body?.issue)?.number);
  const pull = positive(object(body?.pull_request)?.number);
  const comment = positive(object(body?.comment)?.id);
  if (event === 'issue_comment' && issue && comment) return { thread: { repository, number: issue, reactTo: { kind: 'issue_comment', id: comment } } };
  if (event === 'pull_request_review_comment' && pull && comment)
    return { thread: { repository, number: pull, reactTo: { kind: 'review_comment', id: comment } } };
  const number = issue ?? pull;
  if (number && event !== 'commit_comment') return { thread: { repository, number, reactTo: { kind: 'issue', number } } };
  return { none: `a ${event || 'GitHub'} event has no issue or pull request to answer in` };
}
