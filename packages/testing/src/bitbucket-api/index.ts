/**
 * A Bitbucket Cloud REST API stand-in checked against Bitbucket's OpenAPI description, for tests
 * of code that answers on Bitbucket: pull requests, their comments, a repository's permissions.
 * @module
 */
export { BITBUCKET_API_ROOT, startBitbucketApi } from './server.js';
export type { BitbucketApi, BitbucketApiOptions, BitbucketApiToken, BitbucketViolation, BitbucketViolationKind, RecordedBitbucketRequest } from './server.js';
export type { AccountRecord, BitbucketPermission, BitbucketState, CommentRecord, PullRequestRecord, RepositoryRecord } from './state.js';
