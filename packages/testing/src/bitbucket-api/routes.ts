/**
 * What the stand-in does for each operation it simulates, by Bitbucket's operationIds in the
 * vendored description: pull requests created from branches of the git server behind it, their
 * comments (replies through `parent.id`, edits by their author only), and the repository's
 * permissions as a repository admin sees them. Lists are paged, filtered (`q`) and sorted
 * (`sort`) as Bitbucket pages them.
 * @module
 */
import type { GitServer } from '../git-server/index.js';
import { filterItems, QueryError, sortItems } from './bbql.js';
import {
  type AccountRecord,
  type BitbucketPermission,
  type BitbucketState,
  commentView,
  errorBody,
  type Origins,
  placeholderHash,
  type PullRequestRecord,
  pullKey,
  pullRequestView,
  type RepositoryRecord,
  accountView,
  repositoryView,
  timestamp,
} from './state.js';

export interface RouteContext {
  params: Record<string, unknown>;
  query: URLSearchParams;
  body: unknown;
  /** The token's account. */
  user: AccountRecord;
  state: BitbucketState;
  origins: Origins;
  git: GitServer | undefined;
  /** The request's path relative to the API root (for `next` links). */
  path: string;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (context: RouteContext) => Reply | Promise<Reply>;

const RANK: Record<BitbucketPermission, number> = { read: 1, write: 2, admin: 3 };

const notFound = (message: string): Reply => ({ status: 404, body: errorBody(message) });
const bad = (message: string, detail?: string): Reply => ({ status: 400, body: errorBody(message, detail) });
const forbidden = (message: string): Reply => ({ status: 403, body: errorBody(message) });

/** A token's account's permission on the repository: the one seeded for it, else admin (as for an access token an admin made). */
export const permissionOf = (repository: RepositoryRecord, account: AccountRecord): BitbucketPermission => repository.permissions.get(account.uuid) ?? 'admin';

function repositoryOf(context: RouteContext): RepositoryRecord | Reply {
  const repository = context.state.repository(`${String(context.params.workspace)}/${String(context.params.repo_slug)}`);
  return repository ?? notFound('You may not have access to this repository or it no longer exists in this workspace.');
}

function pullOf(context: RouteContext, repository: RepositoryRecord): PullRequestRecord | Reply {
  const pull = context.state.pull(repository.fullName, Number(context.params.pull_request_id));
  return pull ?? notFound(`Pull request ${String(context.params.pull_request_id)} not found`);
}

/** A record, or the answer that refuses the request (records have no `status`). */
const isReply = (value: object): value is Reply => 'status' in value;

/** One page of `all` (after `q` and `sort`), as Bitbucket pages: `pagelen` (default 10, at most 100), `page` from 1, a `next` link. */
function page(context: RouteContext, all: unknown[]): Reply {
  let items: unknown[];
  try {
    items = sortItems(filterItems(all, context.query.get('q')), context.query.get('sort'));
  } catch (error) {
    if (error instanceof QueryError) return bad(error.message);
    throw error;
  }
  const pagelen = Math.min(Math.max(Number(context.query.get('pagelen') ?? 10) || 10, 1), 100);
  const number = Math.max(Number(context.query.get('page') ?? 1) || 1, 1);
  const values = items.slice((number - 1) * pagelen, number * pagelen);
  const body: Record<string, unknown> = { pagelen, size: items.length, page: number, values };
  if (number * pagelen < items.length) {
    const next = new URL(`${context.origins.api}${context.path}`);
    next.searchParams.set('page', String(number + 1));
    body.next = next.toString();
  }
  return { status: 200, body };
}

/** A branch's commit on the git server, `null` when the branch is not there (or the repository is not). */
async function branchHash(context: RouteContext, repository: RepositoryRecord, branch: string): Promise<string | null> {
  if (!context.git) return placeholderHash(`${repository.fullName}:${branch}`);
  try {
    return (await context.git.refs(repository.fullName))[`refs/heads/${branch}`] ?? null;
  } catch {
    return null;
  }
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);

const commentsOf = (context: RouteContext, repository: RepositoryRecord, pull: PullRequestRecord) =>
  [...context.state.comments.values()].filter((comment) => comment.repository === repository.fullName && comment.pullRequest === pull.id);

export const handlers: Record<string, Handler> = {
  async createAPullRequest(context) {
    const repository = repositoryOf(context);
    if (isReply(repository)) return repository;
    if (RANK[permissionOf(repository, context.user)] < RANK.write) return forbidden('You do not have write access to this repository.');
    const body = object(context.body) ?? {};
    const title = typeof body.title === 'string' ? body.title.trim() : '';
    if (!title) return bad('title: This field is required.');
    const source = object(body.source);
    const sourceBranch = object(source?.branch)?.name;
    if (typeof sourceBranch !== 'string' || sourceBranch === '') return bad('source: This field is required.', 'Name the source branch: source.branch.name');
    const sourceRepository = object(source?.repository)?.full_name;
    if (typeof sourceRepository === 'string' && sourceRepository.toLowerCase() !== repository.fullName.toLowerCase())
      return bad('source: pull requests from forks are not simulated by this stand-in');
    const destinationBranch = object(object(body.destination)?.branch)?.name;
    const destination = typeof destinationBranch === 'string' && destinationBranch !== '' ? destinationBranch : repository.mainbranch;
    const [sourceHash, destinationHash] = [await branchHash(context, repository, sourceBranch), await branchHash(context, repository, destination)];
    if (!sourceHash) return bad(`source: branch not found: ${sourceBranch}`);
    if (!destinationHash) return bad(`destination: branch not found: ${destination}`);
    if (sourceBranch === destination || sourceHash === destinationHash) return bad('There are no changes to be pulled');
    const at = timestamp();
    const pull: PullRequestRecord = {
      repository: repository.fullName,
      id: repository.nextPullRequest++,
      title,
      description: typeof body.description === 'string' ? body.description : '',
      source: sourceBranch,
      destination,
      sourceHash,
      destinationHash,
      author: context.user,
      draft: body.draft === true,
      closeSourceBranch: body.close_source_branch === true,
      state: 'OPEN',
      createdOn: at,
      updatedOn: at,
    };
    context.state.pulls.set(pullKey(repository.fullName, pull.id), pull);
    const view = pullRequestView(context.origins, repository, pull, 0);
    return { status: 201, body: view, headers: { location: view.links.self.href } };
  },

  listCommentsOnAPullRequest(context) {
    const repository = repositoryOf(context);
    if (isReply(repository)) return repository;
    const pull = pullOf(context, repository);
    if (isReply(pull)) return pull;
    const comments = commentsOf(context, repository, pull).sort((a, b) => a.id - b.id);
    return page(
      context,
      comments.map((comment) => commentView(context.origins, repository, pull, comment)),
    );
  },

  createACommentOnAPullRequest(context) {
    const repository = repositoryOf(context);
    if (isReply(repository)) return repository;
    const pull = pullOf(context, repository);
    if (isReply(pull)) return pull;
    const body = object(context.body) ?? {};
    const raw = object(body.content)?.raw;
    if (typeof raw !== 'string' || raw.trim() === '') return bad('content: This field is required.', 'A comment needs content.raw');
    const parent = object(body.parent)?.id;
    let parentId: number | null = null;
    if (parent !== undefined) {
      const found = typeof parent === 'number' ? context.state.comments.get(parent) : undefined;
      if (!found || found.repository !== repository.fullName || found.pullRequest !== pull.id)
        return bad(`parent: comment ${String(parent)} is not on this pull request`);
      parentId = found.id;
    }
    const at = timestamp();
    const comment = {
      id: context.state.nextCommentId(),
      repository: repository.fullName,
      pullRequest: pull.id,
      raw,
      user: context.user,
      parentId,
      createdOn: at,
      updatedOn: at,
    };
    context.state.comments.set(comment.id, comment);
    return { status: 201, body: commentView(context.origins, repository, pull, comment) };
  },

  updateACommentOnAPullRequest(context) {
    const repository = repositoryOf(context);
    if (isReply(repository)) return repository;
    const pull = pullOf(context, repository);
    if (isReply(pull)) return pull;
    const comment = context.state.comments.get(Number(context.params.comment_id));
    if (!comment || comment.repository !== repository.fullName || comment.pullRequest !== pull.id) return notFound('Comment not found');
    if (comment.user.uuid !== context.user.uuid) return forbidden('You can only edit your own comments.');
    const raw = object(object(context.body)?.content)?.raw;
    if (typeof raw !== 'string' || raw.trim() === '') return bad('content: This field is required.');
    comment.raw = raw;
    comment.updatedOn = timestamp();
    return { status: 200, body: commentView(context.origins, repository, pull, comment) };
  },

  listARepositoryPermissionsForAWorkspace(context) {
    const repository = repositoryOf(context);
    if (isReply(repository)) return repository;
    if (permissionOf(repository, context.user) !== 'admin') return forbidden('Only users with admin permission for the repository may access this resource.');
    const byUuid = new Map([...context.state.accounts.values()].map((account) => [account.uuid, account]));
    const entries = [...repository.permissions.entries()].flatMap(([uuid, permission]) => {
      const account = byUuid.get(uuid);
      return account
        ? [{ type: 'repository_permission', permission, user: accountView(context.origins, account), repository: repositoryView(context.origins, repository) }]
        : [];
    });
    return page(context, entries);
  },
};
