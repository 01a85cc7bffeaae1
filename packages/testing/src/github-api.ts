/**
 * `@agent-platform/testing/github-api`: a GitHub REST API stand-in on loopback that checks every
 * request and answer against GitHub's published OpenAPI description (`@octokit/openapi`, an
 * optional peer dependency), without vitest.
 * @module
 */
export * from './github-api/index.js';
