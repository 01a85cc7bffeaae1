/**
 * `@agent-platform/testing/gitlab-api`: a GitLab REST API stand-in on loopback that checks every
 * request against GitLab's description of the operation (a trimmed copy of GitLab's REST
 * description, and GitLab's documentation where that lacks one), without vitest.
 * @module
 */
export * from './gitlab-api/index.js';
