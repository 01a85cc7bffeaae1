/**
 * `@agent-platform/testing/bitbucket-api`: a Bitbucket Cloud REST API stand-in on loopback that
 * checks every request and answer against Bitbucket's published OpenAPI description (the
 * operations the platform calls, vendored; `ajv` and `ajv-formats` are optional peer
 * dependencies), without vitest.
 * @module
 */
export * from './bitbucket-api/index.js';
