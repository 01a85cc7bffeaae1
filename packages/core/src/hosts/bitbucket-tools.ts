/**
 * The agent's Bitbucket tools for one run ({@link AgentHostTools} with `host: 'bitbucket'`):
 * comment on a pull request (`bitbucket_comment`) and open a pull request from a branch it pushed
 * (`create_pull_request`), with the automation owner's token, only in the run's repositories.
 * Bitbucket Cloud has no labels on pull requests, so there is no `addLabels`. Out of scope, bad
 * input and Bitbucket's refusals are `PlatformError`s whose messages say why (the agent shows them
 * to the model); none holds the token. Everything the agent writes carries the platform's hidden
 * marker (hidden as Bitbucket renders nothing of it), so its words never command it.
 * @module
 */
import { marked } from '../github/platform-marker.js';
import type { GitHubToolScope } from '../github/github-tools.js';
import { PlatformError, validationError } from '../kernel/errors.js';
import type { AgentHostTools } from '../ports/agent-runner.js';
import { BitbucketError, bitbucketRepositoryOf, createBitbucketApi, type BitbucketApi } from './bitbucket-api.js';
import { bitbucketMarkdown } from './bitbucket-markdown.js';

/** What a run's Bitbucket tools may reach: the same shape as GitHub's (repositories as `workspace/repo`, the event's pull request). */
export type BitbucketToolScope = GitHubToolScope;

export interface BitbucketToolOptions {
  /** The Bitbucket API for a token and host. Default: {@link createBitbucketApi}. */
  apiFor?(token: string, host: string | null): BitbucketApi;
}

/** A repository as Bitbucket names it: `workspace/repo_slug`. */
export const BITBUCKET_REPOSITORY_PATTERN = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;

/** `workspace/repo` of a repository as an automation names it (`workspace/repo`, with `.git`, a bitbucket.org URL), or `null`. */
export function bitbucketRepositoryName(text: string | null | undefined): string | null {
  if (!text) return null;
  const name = text
    .trim()
    .replace(/^https:\/\/bitbucket\.org\//i, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  return BITBUCKET_REPOSITORY_PATTERN.test(name) ? name : null;
}

const MAX_BODY = 32_768;
/** Git's own limits on a branch name are looser; these keep the request sane. */
const BRANCH = /^[A-Za-z0-9._/-]{1,255}$/;

function refused(error: unknown): never {
  if (error instanceof BitbucketError) throw new PlatformError(error.status === null ? 'UNAVAILABLE' : 'BAD_REQUEST', error.message, { cause: error });
  throw error;
}

export function createBitbucketAgentTools(
  scope: BitbucketToolScope,
  credentials: { token: string; host: string | null },
  options: BitbucketToolOptions = {},
): AgentHostTools {
  let api: BitbucketApi | null = null;
  const bitbucket = () => {
    api ??= (options.apiFor ?? ((token: string, host: string | null) => createBitbucketApi(token, host)))(credentials.token, credentials.host);
    return api;
  };
  const allowed = new Map(scope.repositories.map((name) => [name.toLowerCase(), name]));

  const repositoryFor = (given: string | undefined): string => {
    const name = given ?? scope.repositories[0];
    if (!name) throw validationError(['repository'], 'this run has no Bitbucket repository: name one of the repositories the automation allows');
    if (!BITBUCKET_REPOSITORY_PATTERN.test(name))
      throw validationError(['repository'], `"${name.slice(0, 200)}" is not a Bitbucket repository as workspace/repo`);
    const known = allowed.get(name.toLowerCase());
    if (!known)
      throw validationError(['repository'], `repository ${name} is not one this run may act on (allowed: ${scope.repositories.join(', ') || 'none'})`);
    return known;
  };
  const pullRequestFor = (input: { repository?: string; number?: number }): { repository: string; number: number } => {
    const repository = repositoryFor(input.repository ?? (input.number === undefined ? scope.thread?.repository : undefined));
    if (input.number !== undefined) {
      if (!Number.isSafeInteger(input.number) || input.number < 1) throw validationError(['number'], 'number must be a positive integer');
      return { repository, number: input.number };
    }
    if (scope.thread && scope.thread.repository.toLowerCase() === repository.toLowerCase()) return { repository, number: scope.thread.number };
    throw validationError(['number'], `name the pull request: this run's event is about none in ${repository}`);
  };
  const text = (value: unknown, what: string, max: number): string => {
    if (typeof value !== 'string' || value.trim() === '') throw validationError([what], `${what} must not be empty`);
    if (value.length > max) throw validationError([what], `${what} is longer than ${max} characters`);
    return value;
  };

  return {
    host: 'bitbucket',
    repositories: [...scope.repositories],
    thread: scope.thread,
    async comment(input) {
      const thread = pullRequestFor(input);
      const body = text(input.body, 'body', MAX_BODY);
      const posted = await bitbucket()
        .createComment(bitbucketRepositoryOf(thread.repository), thread.number, bitbucketMarkdown(marked(body)))
        .catch(refused);
      await scope.onThreadAction?.({ type: 'comment', ...thread, url: posted.url });
      return posted;
    },
    async createPullRequest(input) {
      const repository = repositoryFor(input.repository);
      const title = text(input.title, 'title', 255);
      if (typeof input.head !== 'string' || !BRANCH.test(input.head))
        throw validationError(['head'], `head must be a branch name, got "${String(input.head).slice(0, 255)}"`);
      if (input.base !== undefined && (typeof input.base !== 'string' || !BRANCH.test(input.base)))
        throw validationError(['base'], `base must be a branch name, got "${String(input.base).slice(0, 255)}"`);
      if (input.body !== undefined) text(input.body, 'body', MAX_BODY);
      const existing = scope.pullRequest;
      if (existing && existing.repository.toLowerCase() === repository.toLowerCase()) {
        const branch = existing.branch ? `: push your commits to its branch ${existing.branch} to update it` : ': push to its branch to update it';
        throw new PlatformError('CONFLICT', `this thread's pull request #${existing.number} is open already${branch}; a second pull request is not opened`);
      }
      const opened = await bitbucket()
        .createPullRequest(bitbucketRepositoryOf(repository), {
          title,
          head: input.head,
          // Marked: its text (which may quote a mention) never commands the agent.
          body: bitbucketMarkdown(marked(input.body ?? '')),
          ...(input.base === undefined ? {} : { base: input.base }),
          ...(input.draft === undefined ? {} : { draft: input.draft }),
        })
        .catch(refused);
      await scope.onPullRequest?.({ repository, number: opened.number, url: opened.url, head: input.head });
      return opened;
    },
  };
}
