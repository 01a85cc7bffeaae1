/**
 * A GitLab REST API stand-in checked against GitLab's description of the operations, for tests
 * of code that talks to GitLab (gitlab.com or self-managed) through `@gitbeaker/rest` or plain HTTP.
 * @module
 */
export { startGitLabApi } from './server.js';
export type { GitLabApi, GitLabApiOptions, GitLabApiToken, RecordedGitLabRequest, Violation, ViolationKind } from './server.js';
export type { AwardRecord, GitLabState, IssueRecord, MergeRequestRecord, NoteableKind, NoteRecord, ProjectState, UserRecord } from './state.js';
