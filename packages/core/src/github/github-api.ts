/**
 * The few GitHub REST calls the platform makes for a user — react, comment, label, open a pull
 * request — as one small interface, and its implementation over `@octokit/rest` with the user's
 * token and host. Octokit is loaded on first use (a platform that never reports to GitHub never
 * needs it; see `load-octokit.ts`). Errors come out as {@link GitHubError}: the status and
 * GitHub's message, never the token or the request's headers.
 * @module
 */
import { HostError, scrubCredential } from '../ports/answer-host.js';
import { githubApiBaseUrl } from './api-base-url.js';
import { loadOctokit } from './load-octokit.js';

export interface GitHubRepository {
  owner: string;
  repo: string;
}

/** What a reaction goes on: an issue or pull request, a comment on one, or a review comment. */
export type ReactionTarget = { kind: 'issue'; number: number } | { kind: 'issue_comment'; id: number } | { kind: 'review_comment'; id: number };

export interface GitHubComment {
  id: number;
  url: string;
}

/** A person's role on a repository, as GitHub names it (`none`: no role, or not a collaborator). */
export type RepositoryRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface GitHubApi {
  /** `login`'s role on the repository (`GET .../collaborators/{username}/permission`); `none` for someone without one. */
  roleOf(repository: GitHubRepository, login: string): Promise<RepositoryRole>;
  addReaction(repository: GitHubRepository, target: ReactionTarget, content: 'eyes'): Promise<void>;
  /** The newest comment on the thread, updated since `since`, whose body holds `marker`; `null` when none. */
  findComment(repository: GitHubRepository, number: number, marker: string, since: string): Promise<GitHubComment | null>;
  createComment(repository: GitHubRepository, number: number, body: string): Promise<GitHubComment>;
  /** `null` when the comment is gone (deleted by someone). */
  updateComment(repository: GitHubRepository, id: number, body: string): Promise<GitHubComment | null>;
  /** A reply in the review thread of review comment `commentId` on pull request `pull`. */
  createReviewReply(repository: GitHubRepository, pull: number, commentId: number, body: string): Promise<GitHubComment>;
  /** `null` when the review comment is gone. */
  updateReviewComment(repository: GitHubRepository, id: number, body: string): Promise<GitHubComment | null>;
  /** Adds labels; answers the issue's labels now. */
  addLabels(repository: GitHubRepository, number: number, labels: string[]): Promise<string[]>;
  createPullRequest(
    repository: GitHubRepository,
    input: { title: string; body?: string; head: string; base?: string; draft?: boolean },
  ): Promise<{ number: number; url: string }>;
}

/** A GitHub call that failed: its HTTP status (`null`: GitHub was not reached) and why, in words a user acts on. */
export class GitHubError extends HostError {
  override name = 'GitHubError';
  constructor(status: number | null, message: string) {
    super('github', status, message);
  }
}

/** Each call's time limit: a slow GitHub must not hold a run's report (or an agent's step) for long. */
const CALL_TIMEOUT_MS = 15_000;
/** Asked while a webhook waits for its answer (GitHub gives up after 10 s): a slow answer refuses the command. */
const ROLE_TIMEOUT_MS = 5_000;
/** Comments read at most while looking for a run's earlier comment. */
const FIND_PAGES = 5;

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** GitHub's words for a failed request, with what it usually means, and never the token. */
function describe(error: unknown, token: string): GitHubError {
  const status = typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : null;
  const data = (error as { response?: { data?: unknown } })?.response?.data as { message?: unknown; errors?: unknown } | undefined;
  const said = typeof data?.message === 'string' ? data.message : error instanceof Error ? error.message : String(error);
  const details = Array.isArray(data?.errors)
    ? data.errors
        .map((entry) => (typeof entry === 'string' ? entry : typeof entry?.message === 'string' ? entry.message : (entry?.code ?? '')))
        .filter(Boolean)
        .join('; ')
    : '';
  const hint =
    status === 401
      ? ' (the stored GitHub token was refused: expired or revoked?)'
      : status === 403 || status === 404
        ? " (the token's owner may lack access to this repository, or the token the permission)"
        : '';
  const text = status === null ? `GitHub could not be reached: ${said}` : `GitHub answered ${status}: ${said}${details ? ` — ${details}` : ''}${hint}`;
  return new GitHubError(status, scrubCredential(text, token));
}

type OctokitClient = InstanceType<typeof import('@octokit/rest')['Octokit']>;

/** The GitHub API for one token, on its host (`null`: github.com). */
export function createGitHubApi(token: string, host: string | null): GitHubApi {
  const baseUrl = githubApiBaseUrl(host);
  let client: Promise<OctokitClient> | null = null;
  const octokit = () => {
    client ??= loadOctokit().then(({ Octokit }) => new Octokit({ auth: token, baseUrl, userAgent: 'agent-platform', log: silent }));
    return client;
  };
  const call = async <T>(work: (api: OctokitClient, signal: AbortSignal) => Promise<T>, timeoutMs = CALL_TIMEOUT_MS): Promise<T> => {
    try {
      return await work(await octokit(), AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw describe(error, token);
    }
  };
  return {
    roleOf: (repository, login) =>
      call(async (api, signal) => {
        try {
          const { data } = await api.rest.repos.getCollaboratorPermissionLevel({ ...repository, username: login, request: { signal } });
          return roleFrom(data.role_name, data.permission);
        } catch (error) {
          // GitHub answers 404 for someone who is no collaborator (or no user at all): no role.
          if ((error as { status?: unknown }).status === 404) return 'none';
          throw error;
        }
      }, ROLE_TIMEOUT_MS),
    addReaction: (repository, target, content) =>
      call(async (api, signal) => {
        const request = { ...repository, content, request: { signal } };
        if (target.kind === 'issue') await api.rest.reactions.createForIssue({ ...request, issue_number: target.number });
        else if (target.kind === 'issue_comment') await api.rest.reactions.createForIssueComment({ ...request, comment_id: target.id });
        else await api.rest.reactions.createForPullRequestReviewComment({ ...request, comment_id: target.id });
      }),
    findComment: (repository, number, marker, since) =>
      call(async (api, signal) => {
        let found: GitHubComment | null = null;
        for (let page = 1; page <= FIND_PAGES; page++) {
          const { data } = await api.rest.issues.listComments({ ...repository, issue_number: number, since, per_page: 100, page, request: { signal } });
          for (const comment of data) if (comment.body?.includes(marker)) found = { id: comment.id, url: comment.html_url };
          if (data.length < 100) break;
        }
        return found;
      }),
    createComment: (repository, number, body) =>
      call(async (api, signal) => {
        const { data } = await api.rest.issues.createComment({ ...repository, issue_number: number, body, request: { signal } });
        return { id: data.id, url: data.html_url };
      }),
    updateComment: (repository, id, body) =>
      call(async (api, signal) =>
        goneAsNull(async () => {
          const { data } = await api.rest.issues.updateComment({ ...repository, comment_id: id, body, request: { signal } });
          return { id: data.id, url: data.html_url };
        }),
      ),
    createReviewReply: (repository, pull, commentId, body) =>
      call(async (api, signal) => {
        const { data } = await api.rest.pulls.createReplyForReviewComment({
          ...repository,
          pull_number: pull,
          comment_id: commentId,
          body,
          request: { signal },
        });
        return { id: data.id, url: data.html_url };
      }),
    updateReviewComment: (repository, id, body) =>
      call(async (api, signal) =>
        goneAsNull(async () => {
          const { data } = await api.rest.pulls.updateReviewComment({ ...repository, comment_id: id, body, request: { signal } });
          return { id: data.id, url: data.html_url };
        }),
      ),
    addLabels: (repository, number, labels) =>
      call(async (api, signal) => {
        const { data } = await api.rest.issues.addLabels({ ...repository, issue_number: number, labels, request: { signal } });
        return data.map((label) => label.name);
      }),
    createPullRequest: (repository, input) =>
      call(async (api, signal) => {
        const base = input.base ?? (await api.rest.repos.get({ ...repository, request: { signal } })).data.default_branch;
        const { data } = await api.rest.pulls.create({
          ...repository,
          title: input.title,
          head: input.head,
          base,
          ...(input.body === undefined ? {} : { body: input.body }),
          ...(input.draft === undefined ? {} : { draft: input.draft }),
          request: { signal },
        });
        return { number: data.number, url: data.html_url };
      }),
  };
}

const ROLES: readonly RepositoryRole[] = ['admin', 'maintain', 'write', 'triage', 'read', 'none'];

/** The role GitHub names (`role_name`), else the one its older `permission` implies. */
function roleFrom(roleName: string | undefined, permission: string | undefined): RepositoryRole {
  const named = ROLES.find((role) => role === roleName);
  if (named) return named;
  return permission === 'admin' ? 'admin' : permission === 'write' ? 'write' : permission === 'read' ? 'read' : 'none';
}

/** `work`'s answer, or `null` when GitHub answers 404 (a comment someone deleted). */
async function goneAsNull<T>(work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (error) {
    if ((error as { status?: unknown }).status === 404) return null;
    throw error;
  }
}

/** `owner/name` as a {@link GitHubRepository}. */
export function repositoryOf(fullName: string): GitHubRepository {
  const [owner = '', repo = ''] = fullName.split('/');
  return { owner, repo };
}
