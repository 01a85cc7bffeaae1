/**
 * `@agent-platform/core`: the platform's models, validation, services and ports.
 * @module
 */
export * from './kernel/errors.js';
export * from './kernel/validation.js';
export * from './ports/index.js';
export { logsAt, noopLogger, type Logger, type LogLevel } from './ports/logger.js';
export * from './schemas/common.js';
export * from './schemas/principal.js';
export * from './schemas/mcp-config.js';
export * from './schemas/settings.js';
export * from './schemas/custom-secrets.js';
export * from './schemas/openhands-settings.js';
export * from './schemas/provider-tokens.js';
export * from './schemas/api-key.js';
export * from './schemas/webhook.js';
export * from './expressions/glob.js';
export * from './expressions/jmespath.js';
export * from './expressions/expression-schema.js';
export * from './secrets/aes-gcm-secret-box.js';
export * from './keys/api-key-material.js';
export * from './keys/stored-api-key-authenticator.js';
export type { ServiceContext } from './kernel/context.js';
export { defaultSettingsValues, SettingsService } from './settings/settings-service.js';
export { SecretsService } from './secrets/secrets-service.js';
export {
  agentSettingsSchemaDocument,
  conversationSettingsSchemaDocument,
  openHandsSettingsChanges,
  openHandsSettingsView,
  type SettingsChanges,
} from './settings/openhands-settings.js';
export { GitProvidersService } from './settings/git-providers-service.js';
export { ApiKeysService, type SeedApiKeyInput } from './keys/api-keys-service.js';
export { WebhooksService, generateWebhookSecret, type WebhookSecrets } from './webhooks/webhooks-service.js';
export { createAgentPlatform, type AgentPlatform, type AgentPlatformOptions } from './platform.js';
export * from './schemas/automation.js';
export * from './schemas/automation-validation.js';
export * from './schemas/metrics.js';
export * from './schemas/agent-events.js';
export * from './schemas/run.js';
export * from './schemas/subscription.js';
export * from './schemas/delivery.js';
export * from './schemas/github-link.js';
export * from './signatures/index.js';
export { AutomationIndex, type AutomationIndexOptions } from './matching/automation-index.js';
export { SourceIndex } from './matching/source-index.js';
export { compileAutomation, type CompiledAutomation } from './matching/compiled-automation.js';
export { matchEvent, PATTERN_MISS_OUTCOME_LIMIT, type MatchResult } from './matching/match-event.js';
export { EventsService, type InboundRequest, type EventsOptions } from './ingest/events-service.js';
export type { GithubDeliveryInfo, GithubOrgResolver } from './ingest/github-delivery.js';
export { decodeUtf8, jsonNestingExceeds, MAX_JSON_DEPTH, parseJsonText } from './ingest/json-body.js';
export { AutomationsService, HEALTH_PENDING_LIMIT, toRunView } from './automations/automations-service.js';
export { DeliveriesService } from './ingest/deliveries-service.js';
export { GithubLinksService, storedLinksResolver, type GithubLinkInput } from './ingest/github-links-service.js';
export * from './schemas/sandbox-spec.js';
export * from './schemas/sandbox.js';
export * from './schemas/app-conversation.js';
export type {
  AgentEvent,
  AgentOutcome,
  AgentPlatformTools,
  AgentRunInput,
  AgentRunner,
  AgentSettings,
  ConfirmationDecision,
  PendingAction,
} from './ports/agent-runner.js';
export { createCommandAgentRunner, type CommandAgentRunnerOptions } from './agents/command-agent-runner.js';
export { agentLaunch, emptyAgentSettings, EVENT_FILE, MCP_CONFIG_FILE, type AgentLaunch } from './agents/agent-environment.js';
export { chooseAgent, createAgentRouter, type AgentChoice, type AgentRouterOptions } from './agents/agent-router.js';
export { createAgentPlatformTools } from './automations/agent-tools.js';
export { scrubSecrets, secretValuesOf } from './agents/secret-values.js';
export { redact } from './agents/line-splitter.js';
export { RunExecutor, type RunExecutorOptions } from './runs/run-executor.js';
export {
  DEFAULT_GIT_USER_EMAIL,
  DEFAULT_GIT_USER_NAME,
  prepareRepository,
  RepositoryError,
  tokenVariable,
  type PreparedRepository,
  type PrepareRepositoryInput,
} from './agents/git-checkout.js';
export * from './schemas/v1-pages.js';
export { SandboxesService, type SandboxPage } from './sandboxes/sandboxes-service.js';
export { ConversationsService, type Page } from './conversations/conversations-service.js';
export { conversationArchive, eventEntryName, type ConversationArchive } from './conversations/conversation-export.js';
export { MAX_WORKSPACE_FILE_BYTES, workspacePath } from './conversations/conversation-files.js';
export { BoundedDecoder } from './sandboxes/runtime-kit/bounded-decoder.js';
export { ExecEventQueue } from './sandboxes/runtime-kit/exec-event-queue.js';
export { checkStdin, StdinFeed, type StdinInput } from './sandboxes/runtime-kit/stdin-feed.js';
export {
  checkPageLimit,
  decodePageCursor,
  decodeSeqPage,
  encodePageCursor,
  encodeSeqPage,
  type PageCursor,
} from './storage/paging.js';
export { createLocalChangeFeed, type LocalChangeFeed } from './storage/local-change-feed.js';
export {
  applyTransition,
  claimPatch,
  guardAllows,
  isClaimable,
  isFinalRunStatus,
  leaseLapsed,
  leasedRunOps,
  patchRun,
  recoveryPatch,
} from './runs/run-transitions.js';
