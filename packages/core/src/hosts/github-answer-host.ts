/**
 * GitHub on the answer-back port: an event's thread is its issue or pull request (a review
 * comment's thread is that review thread), acknowledged with 👀 on what asked; the run's comment
 * goes in the issue's conversation, or as a reply in the review thread. With the owner's GitHub
 * token and host (`provider_tokens.github`), through `@octokit/rest`. The agent's GitHub tools
 * (comment, label, open a pull request) reach the event's repository and the automation's
 * (`selected_repository`, `github_repositories`) — also for a run whose event was written in no
 * host's thread (a manual dispatch, a push, a custom source's event), when the automation names
 * a GitHub repository.
 * @module
 */
import { createGitHubApi, repositoryOf, type GitHubApi, type ReactionTarget } from '../github/github-api.js';
import { eventThread } from '../github/event-thread.js';
import { createAgentGitHubTools } from '../github/github-tools.js';
import { githubToolRepositories } from '../github/tool-scope.js';
import type { AnswerChannel, AnswerHost, AnswerThread } from '../ports/answer-host.js';
import { GITHUB_SOURCE } from '../schemas/vocabulary.js';

export interface GitHubAnswerHostOptions {
  /** The GitHub API for a token and host. Default: `@octokit/rest`. */
  apiFor?(token: string, host: string | null): GitHubApi;
}

/** What the adapter keeps in a thread's locator. */
interface GitHubLocator {
  repository: string;
  number: number;
  reactTo: ReactionTarget;
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);

/** The issue's or pull request's title and text, for the solvability estimate. */
function subjectOf(payload: unknown): AnswerThread['subject'] {
  const body = object(payload);
  const asked = object(body?.issue) ?? object(body?.pull_request);
  if (typeof asked?.title !== 'string') return null;
  return { title: asked.title, body: typeof asked.body === 'string' ? asked.body : '' };
}

export function createGitHubAnswerHost(options: GitHubAnswerHostOptions = {}): AnswerHost {
  const apiFor = options.apiFor ?? createGitHubApi;
  return {
    name: GITHUB_SOURCE,
    handles: (source) => source === GITHUB_SOURCE,
    threadOf(eventKey, payload) {
      const found = eventThread(eventKey, payload);
      if ('none' in found) return found;
      const { repository, number, reactTo } = found.thread;
      const locator: GitHubLocator = { repository, number, reactTo };
      return { thread: { host: GITHUB_SOURCE, label: `${repository}#${number}`, repository, subject: subjectOf(payload), locator: { ...locator } } };
    },
    channel(thread, owner) {
      const github = owner.settings.providerTokens.github;
      if (!github?.token) return { none: `no GitHub token is stored for the automation's owner (${owner.userId}); store one in their settings` };
      let api: GitHubApi;
      try {
        api = apiFor(github.token, github.host);
      } catch (error) {
        return { none: error instanceof Error ? error.message : String(error) };
      }
      return gitHubChannel(api, thread.locator as unknown as GitHubLocator);
    },
    agentTools(input) {
      const github = input.owner.settings.providerTokens.github;
      if (!github?.token) return null;
      const locator = input.thread ? (input.thread.locator as unknown as GitHubLocator) : null;
      const thread = locator ? { repository: locator.repository, number: locator.number } : null;
      const repositories = githubToolRepositories([thread?.repository ?? null, ...input.repositories], input.automation?.github_repositories);
      // No GitHub repository to reach (the run is of another host's repository, or of none): no GitHub tools.
      if (repositories.length === 0) return null;
      return createAgentGitHubTools(
        { repositories, thread, pullRequest: input.pullRequest, onPullRequest: input.onPullRequest, onThreadAction: input.onThreadAction },
        github.token,
        github.host,
        apiFor,
      );
    },
  };
}

function gitHubChannel(api: GitHubApi, locator: GitHubLocator): AnswerChannel {
  const repository = repositoryOf(locator.repository);
  // A review comment's thread is answered by replies in it; everything else in the issue's conversation.
  const review = locator.reactTo.kind === 'review_comment' ? locator.reactTo.id : null;
  return {
    acknowledge: () => api.addReaction(repository, locator.reactTo, 'eyes'),
    post: (body) => (review ? api.createReviewReply(repository, locator.number, review, body) : api.createComment(repository, locator.number, body)),
    edit: (id, body) => (review ? api.updateReviewComment(repository, Number(id), body) : api.updateComment(repository, Number(id), body)),
    // Replies in a review thread are not searched (GitHub lists them per pull request, not per thread).
    find: async (marker, since) => (review ? null : api.findComment(repository, locator.number, marker, since)),
  };
}
