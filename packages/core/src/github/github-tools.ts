/**
 * The agent's GitHub tools for one run ({@link AgentGitHubTools}): comment, label, open a pull
 * request, with the automation owner's token and host, only in the run's repositories — its
 * event's (or the automation's `selected_repository`) and those the automation's
 * `github_repositories` allow. Out of scope, bad input and GitHub's refusals are `PlatformError`s
 * whose messages say why (the agent shows them to the model); none holds the token.
 * @module
 */
import { PlatformError, validationError } from '../kernel/errors.js';
import type { AgentGitHubTools, GitHubThread } from '../ports/agent-runner.js';
import { GITHUB_REPOSITORY_PATTERN } from '../schemas/automation.js';
import type { HostThreadAction, OpenedChangeRequest } from '../ports/answer-host.js';
import { createGitHubApi, GitHubError, repositoryOf, type GitHubApi } from './github-api.js';
import { marked } from './platform-marker.js';

/** A pull request the agent opened: where, and from which branch. */
export type OpenedPullRequest = OpenedChangeRequest;

/** A comment the agent posted or labels it added, for the audit log. */
export type AgentThreadAction = HostThreadAction;

/** What a run's tools may reach: repositories (the first the default) and the event's thread. */
export interface GitHubToolScope {
  repositories: string[];
  thread: GitHubThread | null;
  /** The pull request the run's thread has already (a follow-up's): the agent pushes to it, and a second one is refused. */
  pullRequest?: { repository: string; number: number; url: string | null; branch: string | null } | null;
  /** Told of each pull request the agent opens, so its thread keeps it. */
  onPullRequest?: (opened: OpenedPullRequest) => Promise<void>;
  /** Told of each comment the agent posts and each set of labels it adds. */
  onThreadAction?: (action: AgentThreadAction) => Promise<void>;
}

const MAX_BODY = 65_536;
const MAX_LABELS = 100;
/** Git's own limits on a branch name are looser; these keep the request sane. */
const BRANCH = /^[A-Za-z0-9._/-]{1,255}$/;

function refused(error: unknown): never {
  if (error instanceof GitHubError) throw new PlatformError(error.status === null ? 'UNAVAILABLE' : 'BAD_REQUEST', error.message, { cause: error });
  throw error;
}

export function createAgentGitHubTools(
  scope: GitHubToolScope,
  token: string,
  host: string | null,
  apiFor: typeof createGitHubApi = createGitHubApi,
): AgentGitHubTools & { readonly host: 'github' } {
  let api: GitHubApi | null = null;
  const github = () => {
    api ??= apiFor(token, host);
    return api;
  };
  const allowed = new Map(scope.repositories.map((name) => [name.toLowerCase(), name]));

  const repositoryFor = (given: string | undefined): string => {
    const name = given ?? scope.repositories[0];
    if (!name) throw validationError(['repository'], 'this run has no GitHub repository: name one of the repositories the automation allows');
    if (!GITHUB_REPOSITORY_PATTERN.test(name)) throw validationError(['repository'], `"${name}" is not a GitHub repository as owner/name`);
    const known = allowed.get(name.toLowerCase());
    if (!known)
      throw validationError(['repository'], `repository ${name} is not one this run may act on (allowed: ${scope.repositories.join(', ') || 'none'})`);
    return known;
  };
  const threadFor = (input: { repository?: string; number?: number }): { repository: string; number: number } => {
    const repository = repositoryFor(input.repository ?? (input.number === undefined ? scope.thread?.repository : undefined));
    if (input.number !== undefined) {
      if (!Number.isSafeInteger(input.number) || input.number < 1) throw validationError(['number'], 'number must be a positive integer');
      return { repository, number: input.number };
    }
    if (scope.thread && scope.thread.repository.toLowerCase() === repository.toLowerCase()) return { repository, number: scope.thread.number };
    throw validationError(['number'], `name the issue or pull request: this run's event is about none in ${repository}`);
  };
  const text = (value: string, what: string, max: number): string => {
    if (typeof value !== 'string' || value.trim() === '') throw validationError([what], `${what} must not be empty`);
    if (value.length > max) throw validationError([what], `${what} is longer than ${max} characters`);
    return value;
  };

  return {
    host: 'github' as const,
    repositories: [...scope.repositories],
    thread: scope.thread,
    async comment(input) {
      const thread = threadFor(input);
      const body = text(input.body, 'body', MAX_BODY);
      const posted = await github().createComment(repositoryOf(thread.repository), thread.number, marked(body)).catch(refused);
      await scope.onThreadAction?.({ type: 'comment', ...thread, url: posted.url });
      return posted;
    },
    async addLabels(input) {
      const thread = threadFor(input);
      const labels = input.labels;
      if (!Array.isArray(labels) || labels.length === 0 || labels.length > MAX_LABELS)
        throw validationError(['labels'], `labels must hold 1 to ${MAX_LABELS} names`);
      for (const label of labels) text(label, 'labels', 50);
      const now = await github().addLabels(repositoryOf(thread.repository), thread.number, labels).catch(refused);
      await scope.onThreadAction?.({ type: 'labels', ...thread, labels });
      return { labels: now };
    },
    async createPullRequest(input) {
      const repository = repositoryFor(input.repository);
      const title = text(input.title, 'title', 256);
      if (!BRANCH.test(input.head)) throw validationError(['head'], `head must be a branch name, got "${input.head}"`);
      if (input.base !== undefined && !BRANCH.test(input.base)) throw validationError(['base'], `base must be a branch name, got "${input.base}"`);
      if (input.body !== undefined) text(input.body, 'body', MAX_BODY);
      const existing = scope.pullRequest;
      if (existing && existing.repository.toLowerCase() === repository.toLowerCase()) {
        const branch = existing.branch ? `: push your commits to its branch ${existing.branch} to update it` : ': push to its branch to update it';
        throw new PlatformError('CONFLICT', `this thread's pull request #${existing.number} is open already${branch}; a second pull request is not opened`);
      }
      const opened = await github()
        .createPullRequest(repositoryOf(repository), {
          title,
          head: input.head,
          // Marked: its text (which may quote a mention) never commands the agent.
          body: marked(input.body ?? ''),
          ...(input.base === undefined ? {} : { base: input.base }),
          ...(input.draft === undefined ? {} : { draft: input.draft }),
        })
        .catch(refused);
      await scope.onPullRequest?.({ repository, number: opened.number, url: opened.url, head: input.head });
      return opened;
    },
  };
}
