/**
 * The stand-in's in-memory GitHub: users (one per token), repositories and their issues, pull
 * requests, comments, reactions and labels. Tests seed it through the server's `add…` methods and
 * read it back for assertions; the route handlers change it.
 * @module
 */
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
import { timestamp } from './resources.js';

export interface RepositoryState {
  record: RepositoryRecord;
  issues: Map<number, IssueRecord>;
  /** Lower-cased name → label (GitHub's label names are case-insensitive). */
  labels: Map<string, LabelRecord>;
  pulls: Map<number, PullRequestRecord>;
  nextNumber: number;
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
