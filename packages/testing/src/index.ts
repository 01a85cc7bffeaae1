/**
 * `@agent-platform/testing`: conformance suites and record fixtures for adapter authors.
 * Import it from test files only: it registers vitest suites. The record builders alone are
 * also at `@agent-platform/testing/fixtures`, which does not load vitest.
 * @module
 */
export { testStorageAdapter } from './storage/index.js';
export type { StorageAdapterFactory, TestStorageAdapterOptions } from './storage/index.js';
export {
  fixtureTime,
  makeApiKeyRecord,
  makeAuditEntry,
  makeAutomationRecord,
  makeConversationEvent,
  makeConversationRecord,
  makeDedupClaim,
  makeDeliveryRecord,
  makeGithubLinkRecord,
  makeOutboundMessageRecord,
  makeProviderTokensRecord,
  makeRunRecord,
  makeRunReport,
  makeSandboxRecord,
  makeSettingsRecord,
  makeStartTaskRecord,
  makeSubscriptionRecord,
  makeThreadRecord,
  makeWebhookRecord,
  uniqueId,
} from './fixtures.js';
export type { AutomationRecordOverrides, SettingsRecordOverrides } from './fixtures.js';
export { testRunQueue } from './run-queue/index.js';
export type { SharedBackend, SharedBackendFactory, TestRunQueueOptions } from './run-queue/index.js';
export { testSandboxRuntime } from './sandbox/index.js';
export type { SandboxRuntimeFactory, TestSandboxRuntimeOptions } from './sandbox/index.js';
export { startFakeLlmServer } from './fake-llm/index.js';
export type {
  FakeLlmServer,
  FakeLlmServerOptions,
  FakeLlmToolCall,
  FakeLlmTurn,
  FakeLlmUsage,
  RecordedLlmRequest,
} from './fake-llm/index.js';
export { startGitServer } from './git-server/index.js';
export type { GitFiles, GitRepositorySetup, GitServer, GitServerOptions, RecordedGitRequest } from './git-server/index.js';
export { startSubscriber } from './webhook-subscriber/index.js';
export type { ReceivedMessage, WebhookSubscriber } from './webhook-subscriber/index.js';
export { flakyStartRuntime } from './sandbox/flaky-runtime.js';
