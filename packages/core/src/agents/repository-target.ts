/**
 * Which repository an automation run works on: the automation's
 * `selected_repository`, or else the repository of the GitHub (GitLab, Bitbucket) event that triggered
 * it — at the pull (merge) request's head for pull request events (and comments on pull
 * requests), at the pushed branch for pushes.
 * @module
 */
import { isGitLabSource } from '../hosts/gitlab-thread.js';
import { gitlabRepositoryTarget } from './gitlab-repository.js';
import { isBitbucketSource } from '../hosts/bitbucket-answer-host.js';
import { bitbucketRepositoryTarget } from './bitbucket-repository.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';
import type { RepositoryTarget } from './git-checkout.js';

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const string = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null);

/** Where in a GitHub event the repository and its pull request or branch are. */
function githubTarget(payload: Json): RepositoryTarget | null {
  const fullName = string(object(payload.repository)?.full_name);
  if (!fullName) return null;
  const pull = object(payload.pull_request);
  if (pull && number(pull.number)) {
    const head = object(pull.head);
    // The head's branch is named only when it lives in this repository: a fork's `main` is not ours.
    const sameRepository = string(object(head?.repo)?.full_name)?.toLowerCase() === fullName.toLowerCase();
    return { repository: fullName, provider: 'github', pullRequest: number(pull.number), branch: sameRepository ? string(head?.ref) : null };
  }
  const issue = object(payload.issue);
  if (issue && object(issue.pull_request) && number(issue.number))
    return { repository: fullName, provider: 'github', pullRequest: number(issue.number), branch: null };
  const ref = string(payload.ref);
  if (ref?.startsWith('refs/heads/') && payload.deleted !== true) return { repository: fullName, provider: 'github', branch: ref.slice('refs/heads/'.length) };
  return { repository: fullName, provider: 'github' };
}

/**
 * The run's repository, or `null` when it has none. `source` is the delivery's source (`null`
 * for a manual dispatch, whose payload is not an event's).
 */
export function runRepository(selectedRepository: string | null, source: string | null, payloadJson: string | null): RepositoryTarget | null {
  let event: RepositoryTarget | null = null;
  const gitlab = source !== null && isGitLabSource(source);
  const bitbucket = source !== null && isBitbucketSource(source);
  if ((source === GITHUB_SOURCE || gitlab || bitbucket) && payloadJson !== null) {
    try {
      const payload = object(JSON.parse(payloadJson));
      event = payload ? (gitlab ? gitlabRepositoryTarget(payload) : bitbucket ? bitbucketRepositoryTarget(payload) : githubTarget(payload)) : null;
    } catch {
      event = null;
    }
  }
  if (!selectedRepository) return event;
  // The automation's repository; the event's pull request or branch only when it is the same one.
  const same = event !== null && event.repository.toLowerCase() === selectedRepository.replace(/\.git$/, '').toLowerCase();
  // An automation on GitLab (Bitbucket) events names a repository on the same GitLab (Bitbucket).
  const provider = gitlab ? { provider: 'gitlab' } : bitbucket ? { provider: 'bitbucket' } : {};
  return same ? { ...event, repository: selectedRepository } : { repository: selectedRepository, ...provider };
}
