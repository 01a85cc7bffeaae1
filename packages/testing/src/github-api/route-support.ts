/**
 * What every route handler shares: the context a handler runs in, its reply, GitHub's common
 * answers (404, 422), the views that depend on who is asking (a repository's `permissions`, an
 * author's association) and pagination with GitHub's `Link` header.
 * @module
 */
import type { GitServer } from '../git-server/index.js';
import { authorAssociation, roleFlags, roleOf } from './collaborators.js';
import { pullRequest, pullRequestSimple } from './pull-resources.js';
import { basicError, type FieldError, label, type Origins, repository, type UserRecord, validationFailed } from './resources.js';
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

export const notFound = (): Reply => ({ status: 404, body: basicError('Not Found', 404) });

export const invalid = (...errors: FieldError[]): Reply => ({ status: 422, body: validationFailed(errors) });

/** Repository names are case-insensitive on GitHub. */
export const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

export function repositoryOf(context: RouteContext): RepositoryState | null {
  return context.state.repository(`${String(context.params.owner)}/${String(context.params.repo)}`);
}

/**
 * The repository with the `permissions` of the token's user: their role where one was seeded (the
 * owner is admin); otherwise read and write, as for an app installed on the repository. A token
 * refused writes (`readOnly`) keeps only `pull`.
 */
export function repositoryView(context: RouteContext, repo: RepositoryState) {
  const role = roleOf(repo, context.user.login);
  const flags = role ? roleFlags(role) : { admin: false, maintain: false, push: true, triage: true, pull: true };
  const write = context.canWrite(repo.record.fullName);
  return repository(context.origins, repo.record, {
    admin: flags.admin && write,
    maintain: flags.maintain && write,
    push: flags.push && write,
    triage: flags.triage && write,
    pull: true,
  });
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

/** The page `page`/`per_page` ask for (GitHub: 30 a page by default, at most 100), with its `Link` header. */
export function paginate<T>(context: RouteContext, all: T[]): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max((context.query.per_page as number | undefined) ?? 30, 1), 100);
  const page = Math.max((context.query.page as number | undefined) ?? 1, 1);
  const last = Math.ceil(all.length / perPage);
  return { items: all.slice((page - 1) * perPage, page * perPage), headers: linkHeader(context, page, last) };
}

function pullContext(context: RouteContext, repo: RepositoryState, number: number) {
  const pull = repo.pulls.get(number);
  const issue = repo.issues.get(number);
  if (!pull || !issue) throw new Error(`no pull request ${repo.record.fullName}#${number}`);
  const labels = issue.labels.map((name) => label(context.origins, repo.record.fullName, context.state.label(repo, name)));
  const view = {
    repository: repositoryView(context, repo),
    owner: repo.record.owner,
    labels,
    state: issue.state,
    association: authorAssociation(repo, pull.user),
  };
  return { pull, view };
}

/** The full pull request (`pulls/get`, `pulls/create`). */
export function pullView(context: RouteContext, repo: RepositoryState, number: number) {
  const { pull, view } = pullContext(context, repo, number);
  const on = (subject: { repository: string }) => sameName(subject.repository, repo.record.fullName);
  const comments = [...context.state.comments.values()].filter((c) => on(c) && c.issueNumber === number).length;
  const reviewComments = [...context.state.reviewComments.values()].filter((c) => on(c) && c.pullNumber === number).length;
  return pullRequest(context.origins, pull, { ...view, comments, reviewComments });
}

/** A pull request as lists show it (`pulls/list`). */
export function pullSimpleView(context: RouteContext, repo: RepositoryState, number: number) {
  const { pull, view } = pullContext(context, repo, number);
  return pullRequestSimple(context.origins, pull, view);
}
