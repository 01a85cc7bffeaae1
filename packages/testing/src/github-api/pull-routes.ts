/**
 * The pull request operations the stand-in simulates: opening, getting and listing pull requests,
 * and their review comments — get, edit, list and reply in a thread.
 * @module
 */
import { authorAssociation } from './collaborators.js';
import { reviewComment } from './pull-resources.js';
import { placeholderSha, type ReviewCommentRecord, timestamp } from './resources.js';
import { type Handler, invalid, notFound, paginate, pullSimpleView, pullView, type Reply, type RouteContext, repositoryOf, sameName } from './route-support.js';
import type { RepositoryState } from './state.js';

async function branchShas(context: RouteContext, fullName: string, branches: string[]): Promise<(string | undefined)[]> {
  if (!context.git) return branches.map((branch) => placeholderSha(`${fullName}:${branch}`));
  let refs: Record<string, string>;
  try {
    refs = await context.git.refs(fullName);
  } catch {
    // No such repository on the git server: no branches at all.
    refs = {};
  }
  return branches.map((branch) => refs[`refs/heads/${branch}`]);
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
  const [headSha, baseSha] = await branchShas(context, repo.record.fullName, [headBranch, body.base]);
  if (!baseSha) return invalid({ resource: 'PullRequest', field: 'base', code: 'invalid' });
  if (!headSha) return invalid({ resource: 'PullRequest', field: 'head', code: 'invalid' });
  if (headSha === baseSha || headBranch === body.base)
    return invalid({ resource: 'PullRequest', code: 'custom', message: `No commits between ${body.base} and ${headBranch}` });
  for (const pull of repo.pulls.values()) {
    if (pull.head.ref === headBranch && pull.base.ref === body.base && repo.issues.get(pull.number)?.state === 'open') {
      return invalid({ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${repo.record.owner.login}:${headBranch}.` });
    }
  }
  const record = context.state.addPullRequest(repo.record.fullName, {
    title: body.title ?? `#${body.issue}`,
    body: body.body ?? null,
    head: headBranch,
    base: body.base,
    draft: body.draft ?? false,
    maintainerCanModify: body.maintainer_can_modify ?? false,
    user: context.user.login,
    headSha,
    baseSha,
  });
  const view = pullView(context, repo, record.number);
  return { status: 201, body: view, headers: { location: view.url } };
}

/**
 * `pulls/list`: `state` (default open), `head` and `base` filters, GitHub's sorts. `head` counts
 * only as `owner:branch` — GitHub ignores a bare branch name there and lists every pull request.
 */
function listPulls(context: RouteContext): Reply {
  const repo = repositoryOf(context);
  if (!repo) return notFound();
  const query = context.query as { state?: 'open' | 'closed' | 'all'; head?: string; base?: string; sort?: string; direction?: 'asc' | 'desc' };
  const wanted = query.state ?? 'open';
  const colon = query.head?.indexOf(':') ?? -1;
  const head = query.head && colon >= 0 ? { owner: query.head.slice(0, colon), ref: query.head.slice(colon + 1) } : null;
  const sort = query.sort ?? 'created';
  const direction = query.direction ?? (sort === 'created' ? 'desc' : 'asc');
  const comments = (number: number) =>
    [...context.state.comments.values()].filter((c) => sameName(c.repository, repo.record.fullName) && c.issueNumber === number).length;
  const all = [...repo.pulls.values()]
    .filter((pull) => wanted === 'all' || repo.issues.get(pull.number)?.state === wanted)
    .filter((pull) => !head || (sameName(head.owner, repo.record.owner.login) && head.ref === pull.head.ref))
    .filter((pull) => query.base === undefined || pull.base.ref === query.base)
    // `long-running`: open for more than a month and updated within the last one. The stand-in's
    // pull requests are updated when created, so none can be both.
    .filter(() => sort !== 'long-running');
  const key = (number: number) => {
    const pull = repo.pulls.get(number);
    return sort === 'popularity' ? comments(number) : Date.parse(pull?.createdAt ?? '');
  };
  all.sort((a, b) => (key(a.number) - key(b.number) || a.number - b.number) * (direction === 'asc' ? 1 : -1));
  const { items, headers } = paginate(context, all);
  return { status: 200, body: items.map((pull) => pullSimpleView(context, repo, pull.number)), headers };
}

/** The review comment the path names, when it is on the repository the path names. */
function reviewCommentOf(context: RouteContext): { repo: RepositoryState; comment: ReviewCommentRecord } | null {
  const repo = repositoryOf(context);
  const comment = context.state.reviewComments.get(context.params.comment_id as number);
  if (!repo || !comment || !sameName(comment.repository, repo.record.fullName)) return null;
  return { repo, comment };
}

const commentView = (context: RouteContext, repo: RepositoryState, comment: ReviewCommentRecord) =>
  reviewComment(context.origins, comment, authorAssociation(repo, comment.user));

export const pullHandlers: Record<string, Handler> = {
  'pulls/create': createPull,

  'pulls/get': (context) => {
    const repo = repositoryOf(context);
    const number = context.params.pull_number as number;
    if (!repo?.pulls.has(number)) return notFound();
    return { status: 200, body: pullView(context, repo, number) };
  },

  'pulls/list': listPulls,

  'pulls/get-review-comment': (context) => {
    const found = reviewCommentOf(context);
    return found ? { status: 200, body: commentView(context, found.repo, found.comment) } : notFound();
  },

  'pulls/update-review-comment': (context) => {
    const found = reviewCommentOf(context);
    if (!found) return notFound();
    found.comment.body = (context.body as { body: string }).body;
    found.comment.updatedAt = timestamp();
    return { status: 200, body: commentView(context, found.repo, found.comment) };
  },

  /** `since` keeps comments updated at or after it; without `sort` they come oldest first. */
  'pulls/list-review-comments': (context) => {
    const repo = repositoryOf(context);
    const number = context.params.pull_number as number;
    if (!repo?.pulls.has(number)) return notFound();
    const since = typeof context.query.since === 'string' ? Date.parse(context.query.since) : null;
    const sort = context.query.sort as 'created' | 'updated' | undefined;
    const sign = sort !== undefined && context.query.direction === 'desc' ? -1 : 1;
    const time = (c: ReviewCommentRecord) => (sort === 'updated' ? Date.parse(c.updatedAt) : Date.parse(c.createdAt));
    const all = [...context.state.reviewComments.values()]
      .filter((c) => sameName(c.repository, repo.record.fullName) && c.pullNumber === number)
      .filter((c) => since === null || Date.parse(c.updatedAt) >= since)
      .sort((a, b) => sign * (time(a) - time(b) || a.id - b.id));
    const { items, headers } = paginate(context, all);
    return { status: 200, body: items.map((c) => commentView(context, repo, c)), headers };
  },

  /** A reply joins the thread of the comment it answers; a comment on another pull request is a 404. */
  'pulls/create-reply-for-review-comment': (context) => {
    const repo = repositoryOf(context);
    const number = context.params.pull_number as number;
    const parent = context.state.reviewComments.get(context.params.comment_id as number);
    if (!repo?.pulls.has(number) || !parent || !sameName(parent.repository, repo.record.fullName) || parent.pullNumber !== number) return notFound();
    const body = (context.body as { body: string }).body;
    const record = context.state.addReviewComment(repo.record.fullName, number, { body, user: context.user.login, inReplyTo: parent.id });
    const view = commentView(context, repo, record);
    return { status: 201, body: view, headers: { location: view.url } };
  },
};
