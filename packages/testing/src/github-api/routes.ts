/**
 * What the stand-in does for each operation it simulates, keyed by GitHub's `operationId`. By the
 * time a handler runs, the server has checked the token and the request against the description,
 * so handlers deal only with GitHub's own rules (unknown repository → 404, a reaction that exists
 * → 200, a pull request without commits → 422).
 * @module
 */
import type { GitServer } from '../git-server/index.js';
import {
  basicError,
  type FieldError,
  issueComment,
  label,
  type Origins,
  placeholderSha,
  privateUser,
  pullRequest,
  type ReactionContent,
  type ReactionSubject,
  reaction,
  repository,
  timestamp,
  type UserRecord,
  validationFailed,
} from './resources.js';
import type { GitHubState, RepositoryState } from './state.js';

export interface RouteContext {
  /** Path parameters, typed as their schemas say (`issue_number` is a number). */
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  /** The token's user. */
  user: UserRecord;
  /** Whether the token may write to the repository the request names. */
  canWrite(fullName: string): boolean;
  origins: Origins;
  state: GitHubState;
  git: GitServer | undefined;
  /** The request's path and query relative to the API root, for `Link` headers. */
  path: string;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (context: RouteContext) => Reply | Promise<Reply>;

const notFound = (): Reply => ({ status: 404, body: basicError('Not Found', 404) });

const invalid = (...errors: FieldError[]): Reply => ({ status: 422, body: validationFailed(errors) });

function repositoryOf(context: RouteContext): RepositoryState | null {
  return context.state.repository(`${String(context.params.owner)}/${String(context.params.repo)}`);
}

function repositoryView(context: RouteContext, repo: RepositoryState) {
  return repository(context.origins, repo.record, { admin: false, push: context.canWrite(repo.record.fullName), pull: true });
}

/** Creates a reaction, or answers the user's existing one with the same content (200), as GitHub does. */
function react(context: RouteContext, subject: ReactionSubject): Reply {
  const content = (context.body as { content: ReactionContent }).content;
  const same = (other: ReactionSubject) =>
    other.kind === subject.kind &&
    other.repository.toLowerCase() === subject.repository.toLowerCase() &&
    ('number' in other && 'number' in subject ? other.number === subject.number : 'id' in other && 'id' in subject && other.id === subject.id);
  const existing = context.state.reactions.find((r) => same(r.subject) && r.user.id === context.user.id && r.content === content);
  if (existing) return { status: 200, body: reaction(context.origins, existing) };
  const record = { id: context.state.nextId(), subject, content, user: context.user, createdAt: timestamp() };
  context.state.reactions.push(record);
  return { status: 201, body: reaction(context.origins, record) };
}

/** GitHub's `Link` header for a page of a list: `next`/`last`, `prev`/`first` where they exist. */
function linkHeader(context: RouteContext, page: number, last: number): Record<string, string> {
  if (last <= 1) return {};
  const at = (n: number) => {
    const url = new URL(`${context.origins.api}${context.path}`);
    url.searchParams.set('page', String(n));
    return url.toString();
  };
  const links: string[] = [];
  if (page < last) links.push(`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`);
  if (page > 1) links.push(`<${at(page - 1)}>; rel="prev"`, `<${at(1)}>; rel="first"`);
  return { link: links.join(', ') };
}

async function gitRefs(git: GitServer | undefined, fullName: string): Promise<Record<string, string> | null> {
  if (!git) return null;
  try {
    return await git.refs(fullName);
  } catch {
    // No such repository on the git server: no branches at all.
    return {};
  }
}

async function createPull(context: RouteContext): Promise<Reply> {
  const repo = repositoryOf(context);
  if (!repo) return notFound();
  const body = context.body as { title?: string; head: string; base: string; body?: string; draft?: boolean; maintainer_can_modify?: boolean; issue?: number };
  if (body.title === undefined && body.issue === undefined) return invalid({ resource: 'PullRequest', field: 'title', code: 'missing_field' });
  // `owner:branch` names a branch of the same repository when the owner is the repository's.
  const [headOwner, headBranch] = body.head.includes(':') ? body.head.split(':', 2) : [repo.record.owner.login, body.head];
  if (headOwner?.toLowerCase() !== repo.record.owner.login.toLowerCase() || !headBranch)
    return invalid({ resource: 'PullRequest', field: 'head', code: 'invalid' });
  const refs = await gitRefs(context.git, repo.record.fullName);
  const headSha = refs ? refs[`refs/heads/${headBranch}`] : placeholderSha(`${repo.record.fullName}:${headBranch}`);
  const baseSha = refs ? refs[`refs/heads/${body.base}`] : placeholderSha(`${repo.record.fullName}:${body.base}`);
  if (!baseSha) return invalid({ resource: 'PullRequest', field: 'base', code: 'invalid' });
  if (!headSha) return invalid({ resource: 'PullRequest', field: 'head', code: 'invalid' });
  if (headSha === baseSha || headBranch === body.base)
    return invalid({ resource: 'PullRequest', code: 'custom', message: `No commits between ${body.base} and ${headBranch}` });
  for (const pull of repo.pulls.values()) {
    if (pull.head.ref === headBranch && pull.base.ref === body.base && repo.issues.get(pull.number)?.state === 'open') {
      return invalid({ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${repo.record.owner.login}:${headBranch}.` });
    }
  }
  const issue = context.state.addIssue(repo.record.fullName, {
    title: body.title ?? `#${body.issue}`,
    body: body.body ?? null,
    pullRequest: true,
    user: context.user.login,
  });
  issue.user = context.user;
  const record = {
    number: issue.number,
    id: context.state.nextId(),
    repository: repo.record.fullName,
    title: issue.title,
    body: issue.body,
    head: { ref: headBranch, sha: headSha },
    base: { ref: body.base, sha: baseSha },
    draft: body.draft ?? false,
    maintainerCanModify: body.maintainer_can_modify ?? false,
    user: context.user,
    createdAt: issue.createdAt,
  };
  repo.pulls.set(record.number, record);
  const view = pullView(context, repo, record.number);
  return { status: 201, body: view, headers: { location: view.url } };
}

function pullView(context: RouteContext, repo: RepositoryState, number: number) {
  const pull = repo.pulls.get(number);
  const issue = repo.issues.get(number);
  if (!pull || !issue) throw new Error(`no pull request ${repo.record.fullName}#${number}`);
  const labels = issue.labels.map((name) => label(context.origins, repo.record.fullName, context.state.label(repo, name)));
  return pullRequest(context.origins, pull, { repository: repositoryView(context, repo), owner: repo.record.owner, labels, state: issue.state });
}

export const handlers: Record<string, Handler> = {
  'users/get-authenticated': (context) => ({ status: 200, body: privateUser(context.origins, context.user) }),

  'repos/get': (context) => {
    const repo = repositoryOf(context);
    return repo ? { status: 200, body: repositoryView(context, repo) } : notFound();
  },

  'reactions/create-for-issue': (context) => {
    const repo = repositoryOf(context);
    const number = context.params.issue_number as number;
    if (!repo?.issues.has(number)) return notFound();
    return react(context, { kind: 'issue', repository: repo.record.fullName, number });
  },

  'reactions/create-for-issue-comment': (context) => {
    const repo = repositoryOf(context);
    const comment = context.state.comments.get(context.params.comment_id as number);
    if (!repo || comment?.repository.toLowerCase() !== repo.record.fullName.toLowerCase()) return notFound();
    return react(context, { kind: 'issue_comment', repository: repo.record.fullName, id: comment.id });
  },

  'reactions/create-for-pull-request-review-comment': (context) => {
    const repo = repositoryOf(context);
    const comment = context.state.reviewComments.get(context.params.comment_id as number);
    if (!repo || comment?.repository.toLowerCase() !== repo.record.fullName.toLowerCase()) return notFound();
    return react(context, { kind: 'pull_request_review_comment', repository: repo.record.fullName, id: comment.id });
  },

  'issues/list-comments': (context) => {
    const repo = repositoryOf(context);
    const number = context.params.issue_number as number;
    if (!repo?.issues.has(number)) return notFound();
    const since = typeof context.query.since === 'string' ? Date.parse(context.query.since) : null;
    const all = [...context.state.comments.values()]
      .filter((c) => c.repository.toLowerCase() === repo.record.fullName.toLowerCase() && c.issueNumber === number)
      .filter((c) => since === null || Date.parse(c.updatedAt) >= since)
      .sort((a, b) => a.id - b.id);
    const perPage = Math.min(Math.max((context.query.per_page as number | undefined) ?? 30, 1), 100);
    const page = Math.max((context.query.page as number | undefined) ?? 1, 1);
    const last = Math.ceil(all.length / perPage);
    const items = all.slice((page - 1) * perPage, page * perPage).map((c) => issueComment(context.origins, c));
    return { status: 200, body: items, headers: linkHeader(context, page, last) };
  },

  'issues/create-comment': (context) => {
    const repo = repositoryOf(context);
    const number = context.params.issue_number as number;
    if (!repo?.issues.has(number)) return notFound();
    const now = timestamp();
    const record = {
      id: context.state.nextId(),
      repository: repo.record.fullName,
      issueNumber: number,
      body: (context.body as { body: string }).body,
      user: context.user,
      createdAt: now,
      updatedAt: now,
    };
    context.state.comments.set(record.id, record);
    const view = issueComment(context.origins, record);
    return { status: 201, body: view, headers: { location: view.url } };
  },

  'issues/get-comment': (context) => {
    const repo = repositoryOf(context);
    const comment = context.state.comments.get(context.params.comment_id as number);
    if (!repo || comment?.repository.toLowerCase() !== repo.record.fullName.toLowerCase()) return notFound();
    return { status: 200, body: issueComment(context.origins, comment) };
  },

  'issues/update-comment': (context) => {
    const repo = repositoryOf(context);
    const comment = context.state.comments.get(context.params.comment_id as number);
    if (!repo || comment?.repository.toLowerCase() !== repo.record.fullName.toLowerCase()) return notFound();
    comment.body = (context.body as { body: string }).body;
    comment.updatedAt = timestamp();
    return { status: 200, body: issueComment(context.origins, comment) };
  },

  'issues/add-labels': (context) => {
    const repo = repositoryOf(context);
    const issue = repo?.issues.get(context.params.issue_number as number);
    if (!repo || !issue) return notFound();
    const wanted = ((context.body as { labels?: (string | { name: string })[] } | undefined)?.labels ?? []).map((item) =>
      typeof item === 'string' ? item : item.name,
    );
    for (const name of wanted) {
      const record = context.state.label(repo, name);
      if (!issue.labels.some((existing) => existing.toLowerCase() === record.name.toLowerCase())) issue.labels.push(record.name);
    }
    const body = issue.labels.map((name) => label(context.origins, repo.record.fullName, context.state.label(repo, name)));
    return { status: 200, body };
  },

  'pulls/create': createPull,

  'pulls/get': (context) => {
    const repo = repositoryOf(context);
    const number = context.params.pull_number as number;
    if (!repo?.pulls.has(number)) return notFound();
    return { status: 200, body: pullView(context, repo, number) };
  },
};
