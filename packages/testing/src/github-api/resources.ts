/**
 * The stand-in's in-memory records and the factories turning them into GitHub's response objects.
 * GitHub's schemas require many members (a pull request ~40, a repository ~75); these fill every
 * required one with a plausible value — ids, node ids, URLs under the stand-in's own origin — so
 * each answer passes the description's response schema, which the server checks before sending.
 * Pull requests and review comments have theirs in `pull-resources.ts`.
 * @module
 */
import type { PermissionFlags } from './collaborators.js';

/** Where the stand-in lives: `web` is the origin (`http://127.0.0.1:PORT`), `api` its `/api/v3`. */
export interface Origins {
  web: string;
  api: string;
}

export interface UserRecord {
  login: string;
  id: number;
  /** `User`, `Bot` (a GitHub App's installation token acts as `name[bot]`) or `Organization`. */
  type: 'User' | 'Bot' | 'Organization';
}

export interface RepositoryRecord {
  id: number;
  owner: UserRecord;
  name: string;
  /** `owner/name`, as seeded. */
  fullName: string;
  private: boolean;
  defaultBranch: string;
  createdAt: string;
}

export interface IssueRecord {
  number: number;
  title: string;
  body: string | null;
  /** A pull request is an issue too on GitHub; its number comes from the same sequence. */
  pullRequest: boolean;
  state: 'open' | 'closed';
  user: UserRecord;
  labels: string[];
  createdAt: string;
}

export interface IssueCommentRecord {
  id: number;
  repository: string;
  issueNumber: number;
  body: string;
  user: UserRecord;
  createdAt: string;
  updatedAt: string;
}

/** A comment on a line (or, with `line: null`, the whole) of a file in a pull request's diff. */
export interface ReviewCommentRecord {
  id: number;
  repository: string;
  pullNumber: number;
  body: string;
  user: UserRecord;
  /** The review it was submitted in: on GitHub every review comment, a reply too, belongs to one. */
  reviewId: number;
  path: string;
  /** The line of the file it is on; `null` for a comment on the whole file. */
  line: number | null;
  side: 'LEFT' | 'RIGHT';
  commitId: string;
  diffHunk: string;
  /** For a reply, the first comment of its thread (GitHub threads every reply under that one). */
  inReplyToId: number | null;
  createdAt: string;
  updatedAt: string;
}

export type AuthorAssociation = 'OWNER' | 'COLLABORATOR' | 'NONE';

export type ReactionContent = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';

export type ReactionSubject =
  | { kind: 'issue'; repository: string; number: number }
  | { kind: 'issue_comment'; repository: string; id: number }
  | { kind: 'pull_request_review_comment'; repository: string; id: number };

export interface ReactionRecord {
  id: number;
  subject: ReactionSubject;
  content: ReactionContent;
  user: UserRecord;
  createdAt: string;
}

export interface LabelRecord {
  id: number;
  name: string;
  color: string;
  description: string | null;
}

export interface PullRequestRecord {
  number: number;
  id: number;
  repository: string;
  title: string;
  body: string | null;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
  draft: boolean;
  maintainerCanModify: boolean;
  user: UserRecord;
  createdAt: string;
}

/** A timestamp as GitHub writes them: ISO 8601, whole seconds, `Z`. */
export const timestamp = (date: Date = new Date()): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** GitHub's global node ids are opaque base64; a type prefix keeps them readable in failures. */
export const nodeId = (prefix: string, id: number): string => `${prefix}_${Buffer.from(`0:${id}`).toString('base64').replace(/=+$/, '')}`;

/** A fake commit id stands in when no git server holds the branch. */
export const placeholderSha = (seed: string): string => {
  let hash = 0x811c9dc5;
  let out = '';
  for (let round = 0; out.length < 40; round++) {
    for (const char of `${seed}:${round}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    out += hash.toString(16).padStart(8, '0');
  }
  return out.slice(0, 40);
};

export function simpleUser(origins: Origins, user: UserRecord) {
  // `name[bot]`: brackets are not allowed in a URI path, GitHub escapes them.
  const api = `${origins.api}/users/${encodeURIComponent(user.login)}`;
  const html = user.type === 'Bot' ? `${origins.web}/apps/${user.login.replace(/\[bot\]$/, '')}` : `${origins.web}/${encodeURIComponent(user.login)}`;
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId(user.type === 'Bot' ? 'BOT' : user.type === 'Organization' ? 'O' : 'U', user.id),
    avatar_url: `${origins.web}/avatars/u/${user.id}`,
    gravatar_id: '',
    url: api,
    html_url: html,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: user.type,
    site_admin: false,
    user_view_type: 'public',
  };
}

/** `GET /user`: the token's owner, with the private members only they see. */
export function privateUser(origins: Origins, user: UserRecord) {
  const created = '2020-01-01T00:00:00Z';
  return {
    ...simpleUser(origins, user),
    user_view_type: 'private',
    name: user.login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: created,
    updated_at: created,
    private_gists: 0,
    total_private_repos: 0,
    owned_private_repos: 0,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
    plan: { name: 'free', space: 976562499, collaborators: 0, private_repos: 10000 },
  };
}

/**
 * A repository: the members of both `repository` (inside a pull request's `head`/`base`) and
 * `full-repository` (`GET /repos/{owner}/{repo}`), which differ by a few required ones.
 */
export function repository(origins: Origins, repo: RepositoryRecord, permissions: PermissionFlags) {
  const api = `${origins.api}/repos/${repo.fullName}`;
  const host = new URL(origins.web).host;
  return {
    id: repo.id,
    node_id: nodeId('R', repo.id),
    name: repo.name,
    full_name: repo.fullName,
    owner: simpleUser(origins, repo.owner),
    private: repo.private,
    visibility: repo.private ? 'private' : 'public',
    html_url: `${origins.web}/${repo.fullName}`,
    description: null,
    fork: false,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_url: `git://${host}/${repo.fullName}.git`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    ssh_url: `git@${host}:${repo.fullName}.git`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    clone_url: `${origins.web}/${repo.fullName}.git`,
    mirror_url: null,
    hooks_url: `${api}/hooks`,
    svn_url: `${origins.web}/${repo.fullName}`,
    homepage: null,
    language: null,
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    size: 0,
    default_branch: repo.defaultBranch,
    open_issues: 0,
    open_issues_count: 0,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    pushed_at: repo.createdAt,
    created_at: repo.createdAt,
    updated_at: repo.createdAt,
    permissions: { ...permissions },
    allow_forking: true,
    web_commit_signoff_required: false,
    license: null,
    network_count: 0,
    subscribers_count: 0,
  };
}

/** `author_association` says how the author relates to the repository (see `collaborators.ts`). */
export function issueComment(origins: Origins, comment: IssueCommentRecord, association: AuthorAssociation) {
  const api = `${origins.api}/repos/${comment.repository}`;
  return {
    id: comment.id,
    node_id: nodeId('IC', comment.id),
    url: `${api}/issues/comments/${comment.id}`,
    html_url: `${origins.web}/${comment.repository}/issues/${comment.issueNumber}#issuecomment-${comment.id}`,
    body: comment.body,
    user: simpleUser(origins, comment.user),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    issue_url: `${api}/issues/${comment.issueNumber}`,
    author_association: association,
    performed_via_github_app: null,
  };
}

export function reaction(origins: Origins, record: ReactionRecord) {
  return { id: record.id, node_id: nodeId('REA', record.id), user: simpleUser(origins, record.user), content: record.content, created_at: record.createdAt };
}

export function label(origins: Origins, repositoryName: string, record: LabelRecord) {
  return {
    id: record.id,
    node_id: nodeId('LA', record.id),
    url: `${origins.api}/repos/${repositoryName}/labels/${encodeURIComponent(record.name)}`,
    name: record.name,
    description: record.description,
    color: record.color,
    default: false,
  };
}

/** GitHub's error bodies: `documentation_url` points at the REST docs for the operation. */
export const DOCS = 'https://docs.github.com/rest';

export function basicError(message: string, status: number) {
  return { message, documentation_url: DOCS, status: String(status) };
}

export interface FieldError {
  resource: string;
  field?: string;
  code: string;
  message?: string;
}

export function validationFailed(errors: FieldError[]) {
  return { message: 'Validation Failed', errors, documentation_url: DOCS, status: '422' };
}
