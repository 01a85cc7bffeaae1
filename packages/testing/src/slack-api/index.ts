/**
 * A Slack Web API stand-in checked against Slack's published Web API description, with the
 * Events API and interactivity requests Slack sends an app, for tests of code that answers in
 * Slack through `@slack/web-api`.
 * @module
 */
export { startSlackApi, DEFAULT_SCOPES } from './server.js';
export type { RecordedSlackRequest, SlackApiOptions, SlackApiServer, SlackViolation, SlackViolationKind } from './server.js';
export { signedSlackRequest, type SlackRequest } from './events.js';
export type { SlackBot, SlackChannelRecord, SlackMessageRecord, SlackState, SlackUserGroupRecord, SlackUserRecord } from './state.js';
