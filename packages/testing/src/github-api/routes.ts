/**
 * What the stand-in does for each operation it simulates, keyed by GitHub's `operationId`. By the
 * time a handler runs, the server has checked the token and the request against the description,
 * so handlers deal only with GitHub's own rules (unknown repository → 404, a reaction that exists
 * → 200, a pull request without commits → 422).
 * @module
 */
import { authorAssociation, legacyPermission, roleFlags, roleOf } from './collaborators.js';
import { pullHandlers } from './pull-routes.js';
import { issueComment, label, privateUser, type ReactionContent, type ReactionSubject, reaction, simpleUser, timestamp } from './resources.js';
import { type Handler, notFound, paginate, type Reply, type RouteContext, repositoryOf, repositoryView, sameName } from './route-support.js';

export type { Handler, Reply, RouteContext } from './route-support.js';

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
      .filter((c) => sameName(c.repository, repo.record.fullName) && c.issueNumber === number)
      .filter((c) => since === null || Date.parse(c.updatedAt) >= since)
      .sort((a, b) => a.id - b.id);
    const { items, headers } = paginate(context, all);
    return { status: 200, body: items.map((c) => issueComment(context.origins, c, authorAssociation(repo, c.user))), headers };
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
    const view = issueComment(context.origins, record, authorAssociation(repo, record.user));
    return { status: 201, body: view, headers: { location: view.url } };
  },

  'issues/get-comment': (context) => {
    const repo = repositoryOf(context);
    const comment = context.state.comments.get(context.params.comment_id as number);
    if (!repo || comment?.repository.toLowerCase() !== repo.record.fullName.toLowerCase()) return notFound();
    return { status: 200, body: issueComment(context.origins, comment, authorAssociation(repo, comment.user)) };
  },

  'issues/update-comment': (context) => {
    const repo = repositoryOf(context);
    const comment = context.state.comments.get(context.params.comment_id as number);
    if (!repo || comment?.repository.toLowerCase() !== repo.record.fullName.toLowerCase()) return notFound();
    comment.body = (context.body as { body: string }).body;
    comment.updatedAt = timestamp();
    return { status: 200, body: issueComment(context.origins, comment, authorAssociation(repo, comment.user)) };
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

  /**
   * The user's role and the legacy permission it maps to. A user without a role gets a 200 all the
   * same, as from GitHub: `read` on a public repository (anyone may read it), otherwise `none` with
   * an empty `role_name` — what GitHub sends for a non-collaborator on a private repository (the
   * schema takes any string, so no 404 is needed). An unknown login is a 404. Every token reads
   * every seeded repository here (like an app installed on all of them), so the token needs nothing.
   */
  'repos/get-collaborator-permission-level': (context) => {
    const repo = repositoryOf(context);
    const user = context.state.users.get(String(context.params.username).toLowerCase());
    if (!repo || !user) return notFound();
    const role = roleOf(repo, user.login) ?? (repo.record.private ? null : 'read');
    const roleName = role ?? '';
    const collaborator = { ...simpleUser(context.origins, user), permissions: roleFlags(role), role_name: roleName };
    return { status: 200, body: { permission: legacyPermission(role), role_name: roleName, user: collaborator } };
  },

  ...pullHandlers,
};
