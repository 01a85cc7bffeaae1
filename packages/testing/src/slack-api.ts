/**
 * `@agent-platform/testing/slack-api`: a Slack Web API stand-in on loopback that checks every
 * call and answer against Slack's published Web API description (a trimmed copy ships with it;
 * ajv and ajv-formats are optional peer dependencies), and makes the signed Events API and
 * interactivity requests Slack sends, without vitest.
 * @module
 */
export * from './slack-api/index.js';
