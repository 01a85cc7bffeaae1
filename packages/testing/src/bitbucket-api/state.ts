/**
 * The stand-in's in-memory Bitbucket Cloud: accounts, repositories (with each person's permission
 * on them), pull requests and their comments — and how Bitbucket shows each as JSON, with links
 * on the stand-in's origin. Tests seed it through the server's `add…` methods and read it back
 * for assertions; the route handlers change it.
 * @module
 */
import { randomUUID } from 'node:crypto';

export type BitbucketPermission = 'admin' | 'write' | 'read';

export interface AccountRecord {
  /** `{…}`, Bitbucket's braces included. */
  uuid: string;
  /** The Atlassian account id (`557058:…`). */
  accountId: string;
  nickname: string;
  displayName: string;
  /** `user`, or `app_user` for an access token's bot account. */
  type: 'user' | 'app_user';
}

export interface RepositoryRecord {
  workspace: string;
  slug: string;
  fullName: string;
  uuid: string;
  mainbranch: string;
  isPrivate: boolean;
  createdOn: string;
  /** Account uuid → effective permission (direct or through a group: Bitbucket tells them alike). */
  permissions: Map<string, BitbucketPermission>;
  nextPullRequest: number;
}

export interface PullRequestRecord {
  repository: string;
  id: number;
  title: string;
  description: string;
  source: string;
  destination: string;
  sourceHash: string;
  destinationHash: string;
  author: AccountRecord;
  draft: boolean;
  closeSourceBranch: boolean;
  state: 'OPEN' | 'MERGED' | 'DECLINED' | 'SUPERSEDED';
  createdOn: string;
  updatedOn: string;
}

export interface CommentRecord {
  id: number;
  repository: string;
  pullRequest: number;
  raw: string;
  user: AccountRecord;
  parentId: number | null;
  createdOn: string;
  updatedOn: string;
}

/** Where links point: the web origin (`html`) and the API root (`self`). */
export interface Origins {
  web: string;
  api: string;
}

/** Bitbucket's timestamps: microseconds and an explicit UTC offset (`2026-01-02T03:04:05.678901+00:00`). */
export const timestamp = (at = new Date()): string => at.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');

/** A commit id for a branch when no git server stands behind the stand-in. */
export const placeholderHash = (text: string): string => Buffer.from(text).toString('hex').padEnd(40, '0').slice(0, 40);

export interface BitbucketState {
  accounts: Map<string, AccountRecord>;
  repositories: Map<string, RepositoryRecord>;
  pulls: Map<string, PullRequestRecord>;
  comments: Map<number, CommentRecord>;
  /** The account named `nickname`, made on first use. */
  account(nickname: string, setup?: { accountId?: string; uuid?: string; displayName?: string; type?: AccountRecord['type'] }): AccountRecord;
  repository(fullName: string): RepositoryRecord | null;
  addRepository(fullName: string, setup?: { mainbranch?: string; isPrivate?: boolean }): RepositoryRecord;
  pull(fullName: string, id: number): PullRequestRecord | null;
  nextCommentId(): number;
}

const key = (fullName: string) => fullName.toLowerCase();

export function createState(): BitbucketState {
  const accounts = new Map<string, AccountRecord>();
  const repositories = new Map<string, RepositoryRecord>();
  const pulls = new Map<string, PullRequestRecord>();
  let commentId = 1000;
  return {
    accounts,
    repositories,
    pulls,
    comments: new Map(),
    account(nickname, setup = {}) {
      const known = accounts.get(nickname.toLowerCase());
      if (known) return known;
      const made: AccountRecord = {
        uuid: setup.uuid ?? `{${randomUUID()}}`,
        accountId: setup.accountId ?? `557058:${randomUUID()}`,
        nickname,
        displayName: setup.displayName ?? nickname,
        type: setup.type ?? 'user',
      };
      accounts.set(nickname.toLowerCase(), made);
      return made;
    },
    repository: (fullName) => repositories.get(key(fullName)) ?? null,
    addRepository(fullName, setup = {}) {
      const [workspace = '', slug = ''] = fullName.split('/');
      if (!workspace || !slug) throw new Error(`"${fullName}" is not workspace/repo_slug`);
      const known = repositories.get(key(fullName));
      if (known) return known;
      const made: RepositoryRecord = {
        workspace,
        slug,
        fullName,
        uuid: `{${randomUUID()}}`,
        mainbranch: setup.mainbranch ?? 'main',
        isPrivate: setup.isPrivate ?? true,
        createdOn: timestamp(),
        permissions: new Map(),
        nextPullRequest: 1,
      };
      repositories.set(key(fullName), made);
      return made;
    },
    pull: (fullName, id) => pulls.get(`${key(fullName)}#${id}`) ?? null,
    nextCommentId: () => ++commentId,
  };
}

/** Where a pull request is kept in `state.pulls`. */
export const pullKey = (fullName: string, id: number): string => `${key(fullName)}#${id}`;

const link = (href: string) => ({ href });

export function accountView(origins: Origins, account: AccountRecord) {
  return {
    type: account.type,
    uuid: account.uuid,
    account_id: account.accountId,
    nickname: account.nickname,
    display_name: account.displayName,
    links: {
      self: link(`${origins.api}/users/${encodeURIComponent(account.uuid)}`),
      html: link(`${origins.web}/${encodeURIComponent(account.uuid)}/`),
      avatar: link(`${origins.web}/account/${account.nickname}/avatar/`),
    },
  };
}

export function repositoryView(origins: Origins, repository: RepositoryRecord) {
  return {
    type: 'repository',
    full_name: repository.fullName,
    name: repository.slug,
    uuid: repository.uuid,
    is_private: repository.isPrivate,
    links: {
      self: link(`${origins.api}/repositories/${repository.fullName}`),
      html: link(`${origins.web}/${repository.fullName}`),
      avatar: link(`${origins.web}/${repository.fullName}/avatar/32/`),
    },
  };
}

const text = (raw: string) => ({ raw, markup: 'markdown', html: `<p>${raw.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>` });

export function pullRequestView(origins: Origins, repository: RepositoryRecord, pull: PullRequestRecord, commentCount: number) {
  const self = `${origins.api}/repositories/${repository.fullName}/pullrequests/${pull.id}`;
  const endpoint = (branch: string, hash: string) => ({
    branch: { name: branch },
    commit: { hash: hash.slice(0, 12) },
    repository: repositoryView(origins, repository),
  });
  return {
    type: 'pullrequest',
    id: pull.id,
    title: pull.title,
    description: pull.description,
    rendered: { title: text(pull.title), description: text(pull.description) },
    summary: text(pull.description),
    state: pull.state,
    author: accountView(origins, pull.author),
    source: endpoint(pull.source, pull.sourceHash),
    destination: endpoint(pull.destination, pull.destinationHash),
    comment_count: commentCount,
    task_count: 0,
    close_source_branch: pull.closeSourceBranch,
    reason: '',
    created_on: pull.createdOn,
    updated_on: pull.updatedOn,
    reviewers: [],
    participants: [],
    draft: pull.draft,
    links: {
      self: link(self),
      html: link(`${origins.web}/${repository.fullName}/pull-requests/${pull.id}`),
      commits: link(`${self}/commits`),
      approve: link(`${self}/approve`),
      diff: link(`${self}/diff`),
      diffstat: link(`${self}/diffstat`),
      comments: link(`${self}/comments`),
      activity: link(`${self}/activity`),
      merge: link(`${self}/merge`),
      decline: link(`${self}/decline`),
    },
  };
}

export function commentView(origins: Origins, repository: RepositoryRecord, pull: PullRequestRecord, comment: CommentRecord) {
  const pullSelf = `${origins.api}/repositories/${repository.fullName}/pullrequests/${pull.id}`;
  const pullHtml = `${origins.web}/${repository.fullName}/pull-requests/${pull.id}`;
  const links = (id: number) => ({ self: link(`${pullSelf}/comments/${id}`), html: link(`${pullHtml}#comment-${id}`) });
  return {
    type: 'pullrequest_comment',
    id: comment.id,
    created_on: comment.createdOn,
    updated_on: comment.updatedOn,
    content: text(comment.raw),
    user: accountView(origins, comment.user),
    deleted: false,
    pending: false,
    ...(comment.parentId === null ? {} : { parent: { type: 'pullrequest_comment', id: comment.parentId, links: links(comment.parentId) } }),
    links: links(comment.id),
    pullrequest: { type: 'pullrequest', id: pull.id, title: pull.title, links: { self: link(pullSelf), html: link(pullHtml) } },
  };
}

/** Bitbucket's error document. */
export const errorBody = (message: string, detail?: string) => ({ type: 'error', error: { message, ...(detail ? { detail } : {}) } });
