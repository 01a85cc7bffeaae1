/**
 * A GitHub REST API stand-in checked against GitHub's OpenAPI description, for tests of code
 * that talks to GitHub (or GitHub Enterprise Server) through octokit.
 * @module
 */
export { startGitHubApi } from './server.js';
export type { GitHubApi, GitHubApiOptions, GitHubApiToken, RecordedGitHubRequest, Violation, ViolationKind } from './server.js';
export type { CollaboratorRole } from './collaborators.js';
export type { GitHubState, PullRequestSetup, RepositoryState, ReviewCommentSetup } from './state.js';
export type {
  AuthorAssociation,
  IssueCommentRecord,
  IssueRecord,
  LabelRecord,
  PullRequestRecord,
  ReactionContent,
  ReactionRecord,
  ReactionSubject,
  RepositoryRecord,
  ReviewCommentRecord,
  UserRecord,
} from './resources.js';
