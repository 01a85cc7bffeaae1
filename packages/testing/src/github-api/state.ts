/**
 * The stand-in's in-memory GitHub: users (one per token), repositories and their collaborators,
 * issues, pull requests, comments, review comments, reactions and labels. Tests seed it through the server's `add…` methods and
 * read it back for assertions; the route handlers change it.
 * @module
 */
import type { CollaboratorRole } from './collaborators.js';
import type {
  IssueCommentRecord,
  IssueRecord,
  LabelRecord,
  PullRequestRecord,
  ReactionRecord,
  RepositoryRecord,
  ReviewCommentRecord,
  UserRecord,
} from './resources.js';
import { placeholderSha, timestamp } from './resources.js';

export interface RepositoryState {
  record: RepositoryRecord;
  issues: Map<number, IssueRecord>;
  /** Lower-cased name → label (GitHub's label names are case-insensitive). */
  labels: Map<string, LabelRecord>;
  pulls: Map<number, PullRequestRecord>;
  /** Lower-cased login → role. The owner is admin without an entry (see `roleOf`). */
  collaborators: Map<string, CollaboratorRole>;
  nextNumber: number;
}

export interface PullRequestSetup {
  number?: number;
  title?: string;
  body?: string | null;
  /** A branch of the same repository (forks are not simulated). */
  head: string;
  /** Default: the repository's default branch. */
  base?: string;
  draft?: boolean;
  maintainerCanModify?: boolean;
  /** Default `octocat`. */
  user?: string;
  /** Default `open`. */
  state?: 'open' | 'closed';
  /** The branches' commits; default: made-up ids derived from the branch names. */
  headSha?: string;
  baseSha?: string;
}

export interface ReviewCommentSetup {
  body: string;
  /** Default `octocat`. */
  user?: string;
  /** Default `README.md`. */
  path?: string;
  /** Default 1; `null` comments on the whole file. */
  line?: number | null;
  side?: 'LEFT' | 'RIGHT';
  /** Default: a one-line hunk at `line`. */
  diffHunk?: string;
  /**
   * Makes it a reply in that comment's thread: GitHub then takes path, line and commit from the
   * thread and ignores any given here.
   */
  inReplyTo?: number;
}

export interface GitHubState {
  users: Map<string, UserRecord>;
  repositories: Map<string, RepositoryState>;
  comments: Map<number, IssueCommentRecord>;
  reviewComments: Map<number, ReviewCommentRecord>;
  reactions: ReactionRecord[];
  /** The next id of any kind: distinct across kinds, which makes mix-ups visible in tests. */
  nextId(): number;
  user(login: string, type?: UserRecord['type']): UserRecord;
  /** The repository named `owner/name` (any case), or `null`. */
  repository(fullName: string): RepositoryState | null;
  addRepository(fullName: string, setup?: { private?: boolean; defaultBranch?: string }): RepositoryState;
  addIssue(
    fullName: string,
    setup: { number?: number; title?: string; body?: string | null; pullRequest?: boolean; user?: string; labels?: string[] },
  ): IssueRecord;
  /** A pull request and its issue side; throws when the number is taken. */
  addPullRequest(fullName: string, setup: PullRequestSetup): PullRequestRecord;
  /** A review comment on pull request `pullNumber`; throws when there is no such pull request (or thread). */
  addReviewComment(fullName: string, pullNumber: number, setup: ReviewCommentSetup): ReviewCommentRecord;
  /** The label named `name` in the repository, created (with a grey colour) when it is new. */
  label(repository: RepositoryState, name: string): LabelRecord;
}

const LABEL_COLOURS = ['ededed', 'd73a4a', '0075ca', 'a2eeef', '7057ff', '008672', 'e4e669', 'd876e3'];

export function createState(): GitHubState {
  let id = 1000;
  const state: GitHubState = {
    users: new Map(),
    repositories: new Map(),
    comments: new Map(),
    reviewComments: new Map(),
    reactions: [],
    nextId: () => ++id,
    user(login, type = 'User') {
      let user = state.users.get(login.toLowerCase());
      if (!user) {
        user = { login, id: state.nextId(), type };
        state.users.set(login.toLowerCase(), user);
      }
      return user;
    },
    repository: (fullName) => state.repositories.get(fullName.toLowerCase()) ?? null,
    addRepository(fullName, setup = {}) {
      const [owner, name, ...rest] = fullName.split('/');
      if (!owner || !name || rest.length > 0) throw new Error(`a repository is named owner/name, not ${fullName}`);
      const existing = state.repository(fullName);
      if (existing) return existing;
      const repository: RepositoryState = {
        record: {
          id: state.nextId(),
          owner: state.user(owner, 'Organization'),
          name,
          fullName,
          private: setup.private ?? true,
          defaultBranch: setup.defaultBranch ?? 'main',
          createdAt: timestamp(),
        },
        issues: new Map(),
        labels: new Map(),
        pulls: new Map(),
        collaborators: new Map(),
        nextNumber: 1,
      };
      state.repositories.set(fullName.toLowerCase(), repository);
      return repository;
    },
    addIssue(fullName, setup) {
      const repository = state.repository(fullName) ?? state.addRepository(fullName);
      const number = setup.number ?? repository.nextNumber;
      if (repository.issues.has(number)) throw new Error(`${fullName}#${number} exists already`);
      repository.nextNumber = Math.max(repository.nextNumber, number + 1);
      const issue: IssueRecord = {
        number,
        title: setup.title ?? `Issue ${number}`,
        body: setup.body ?? null,
        pullRequest: setup.pullRequest ?? false,
        state: 'open',
        user: state.user(setup.user ?? 'octocat'),
        labels: [],
        createdAt: timestamp(),
      };
      repository.issues.set(number, issue);
      for (const name of setup.labels ?? []) issue.labels.push(state.label(repository, name).name);
      return issue;
    },
    addPullRequest(fullName, setup) {
      const repository = state.repository(fullName) ?? state.addRepository(fullName);
      const base = setup.base ?? repository.record.defaultBranch;
      const issue = state.addIssue(fullName, { number: setup.number, title: setup.title, body: setup.body, pullRequest: true, user: setup.user });
      issue.state = setup.state ?? 'open';
      const pull: PullRequestRecord = {
        number: issue.number,
        id: state.nextId(),
        repository: repository.record.fullName,
        title: issue.title,
        body: issue.body,
        head: { ref: setup.head, sha: setup.headSha ?? placeholderSha(`${repository.record.fullName}:${setup.head}`) },
        base: { ref: base, sha: setup.baseSha ?? placeholderSha(`${repository.record.fullName}:${base}`) },
        draft: setup.draft ?? false,
        maintainerCanModify: setup.maintainerCanModify ?? false,
        user: issue.user,
        createdAt: issue.createdAt,
      };
      repository.pulls.set(pull.number, pull);
      return pull;
    },
    addReviewComment(fullName, pullNumber, setup) {
      const repository = state.repository(fullName);
      const pull = repository?.pulls.get(pullNumber);
      if (!repository || !pull) throw new Error(`no pull request ${fullName}#${pullNumber}: addPullRequest() it first`);
      let thread: ReviewCommentRecord | undefined;
      if (setup.inReplyTo !== undefined) {
        const parent = state.reviewComments.get(setup.inReplyTo);
        if (parent?.repository !== repository.record.fullName || parent.pullNumber !== pullNumber)
          throw new Error(`no review comment ${setup.inReplyTo} on ${fullName}#${pullNumber}`);
        // A reply to a reply joins the same thread: its `in_reply_to_id` is the thread's first comment.
        thread = parent.inReplyToId === null ? parent : (state.reviewComments.get(parent.inReplyToId) ?? parent);
      }
      const line = thread ? thread.line : setup.line === undefined ? 1 : setup.line;
      const at = timestamp();
      const comment: ReviewCommentRecord = {
        id: state.nextId(),
        repository: repository.record.fullName,
        pullNumber,
        body: setup.body,
        user: state.user(setup.user ?? 'octocat'),
        // Every comment is submitted in a review of its own unless it is part of a pending one,
        // which the stand-in does not simulate.
        reviewId: state.nextId(),
        path: thread?.path ?? setup.path ?? 'README.md',
        line,
        side: thread?.side ?? setup.side ?? 'RIGHT',
        commitId: thread?.commitId ?? pull.head.sha,
        diffHunk: thread?.diffHunk ?? setup.diffHunk ?? `@@ -${line ?? 1},1 +${line ?? 1},1 @@`,
        inReplyToId: thread?.id ?? null,
        createdAt: at,
        updatedAt: at,
      };
      state.reviewComments.set(comment.id, comment);
      return comment;
    },
    label(repository, name) {
      let label = repository.labels.get(name.toLowerCase());
      if (!label) {
        label = { id: state.nextId(), name, color: LABEL_COLOURS[repository.labels.size % LABEL_COLOURS.length] ?? 'ededed', description: null };
        repository.labels.set(name.toLowerCase(), label);
      }
      return label;
    },
  };
  return state;
}
