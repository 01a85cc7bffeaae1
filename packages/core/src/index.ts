/**
 * `@agent-platform/core`: the platform's models, validation, services and ports.
 * @module
 */
export * from './errors.js';
export * from './validation.js';
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
export * from './auth/api-key-material.js';
export * from './auth/stored-api-key-authenticator.js';
export type { ServiceContext } from './services/context.js';
export { defaultSettingsValues, SettingsService } from './services/settings-service.js';
export { SecretsService } from './services/secrets-service.js';
export {
  agentSettingsSchemaDocument,
  conversationSettingsSchemaDocument,
  openHandsSettingsChanges,
  openHandsSettingsView,
  type SettingsChanges,
} from './services/openhands-settings.js';
export { GitProvidersService } from './services/git-providers-service.js';
export { ApiKeysService, type SeedApiKeyInput } from './services/api-keys-service.js';
export { WebhooksService, generateWebhookSecret, type WebhookSecrets } from './services/webhooks-service.js';
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
export { AutomationIndex, type AutomationIndexOptions } from './automations/automation-index.js';
export { SourceIndex } from './automations/source-index.js';
export { compileAutomation, type CompiledAutomation } from './automations/compiled-automation.js';
export { matchEvent, PATTERN_MISS_OUTCOME_LIMIT, type MatchResult } from './automations/match-event.js';
export { EventsService, type InboundRequest, type EventsOptions } from './ingest/events-service.js';
export type { GithubDeliveryInfo, GithubOrgResolver } from './ingest/github-delivery.js';
export { decodeUtf8, jsonNestingExceeds, MAX_JSON_DEPTH, parseJsonText } from './ingest/json-body.js';
export { AutomationsService, HEALTH_PENDING_LIMIT, toRunView } from './services/automations-service.js';
export { DeliveriesService } from './services/deliveries-service.js';
export { GithubLinksService, storedLinksResolver, type GithubLinkInput } from './services/github-links-service.js';
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
export { createAgentPlatformTools } from './agents/platform-tools.js';
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
} from './runs/repository.js';
export * from './schemas/v1-pages.js';
export { SandboxesService, type SandboxPage } from './services/sandboxes-service.js';
export { ConversationsService, type Page } from './services/conversations-service.js';
export { conversationArchive, eventEntryName, type ConversationArchive } from './services/conversation-export.js';
export { MAX_WORKSPACE_FILE_BYTES, workspacePath } from './services/conversation-files.js';
export { BoundedDecoder } from './sandbox/bounded-decoder.js';
export { ExecEventQueue } from './sandbox/exec-event-queue.js';
export { checkStdin, StdinFeed, type StdinInput } from './sandbox/stdin-feed.js';
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
