/**
 * `@agent-platform/core`: what an embedder calls — `createAgentPlatform` and its options, the
 * services and the records they answer, the ports' types (storage, sandbox runtime, run queue,
 * agent runner, authenticator, secret box…), the schemas, errors and validation, the secret box,
 * the API-key authenticator, the agent router and command runner, and signature verification.
 *
 * What only someone writing an adapter needs (a storage adapter, a sandbox runtime, an agent
 * runner) is in `@agent-platform/core/adapter-kit`.
 * @module
 */
// The wire schemas and error codes, as `@agent-platform/core/schemas` ships them.
export * from './schemas.js';
export * from './kernel/validation.js';
export { hasRole, requireRole, roleOf } from './kernel/roles.js';
export { AuditLog, keyActor, threadActor, SYSTEM_ACTOR, type AuditActor, type AuditRecord } from './audit/audit-log.js';
export { entryHash } from './audit/audit-chain.js';
// The ports: what an embedder passes in (and may implement).
export * from './ports/index.js';
export { logsAt, noopLogger, type Logger, type LogLevel } from './ports/logger.js';
// Traces and metrics (OpenTelemetry API): what a host passes in, and what agent runners share.
export * from './telemetry/index.js';
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
export * from './signatures/index.js';
export { AutomationIndex, type AutomationIndexOptions } from './matching/automation-index.js';
export { SourceIndex } from './matching/source-index.js';
export { compileAutomation, type CompiledAutomation } from './matching/compiled-automation.js';
export { matchEvent, PATTERN_MISS_OUTCOME_LIMIT, type MatchResult } from './matching/match-event.js';
export type { ActorTrust, RoleLookup, TrustDecision } from './threads/actor-trust.js';
export type { EventActor } from './threads/event-actor.js';
export type { RepositoryRole } from './github/github-api.js';
export type { ThreadCommand } from './threads/thread-command.js';
export { EventsService, type InboundRequest, type EventsOptions } from './ingest/events-service.js';
export type { GithubDeliveryInfo, GithubOrgResolver } from './ingest/github-delivery.js';
export { decodeUtf8, jsonNestingExceeds, MAX_JSON_DEPTH, parseJsonText } from './ingest/json-body.js';
export { AutomationsService, HEALTH_PENDING_LIMIT, toRunView } from './automations/automations-service.js';
export { DeliveriesService } from './ingest/deliveries-service.js';
export { GithubLinksService, storedLinksResolver, type GithubLinkInput } from './ingest/github-links-service.js';
export type {
  AgentEvent,
  AgentOutcome,
  AgentPlatformTools,
  AgentGitHubTools,
  GitHubThread,
  AgentRunInput,
  AgentRunner,
  AgentSettings,
  ConfirmationDecision,
  PendingAction,
} from './ports/agent-runner.js';
export { createCommandAgentRunner, type CommandAgentRunnerOptions } from './agents/command-agent-runner.js';
export { emptyAgentSettings } from './agents/agent-environment.js';
export { chooseAgent, createAgentRouter, type AgentChoice, type AgentRouterOptions } from './agents/agent-router.js';
export { createAgentPlatformTools } from './automations/agent-tools.js';
export { RunExecutor, type RunExecutorOptions } from './runs/run-executor.js';
export type { RunEvent, RunEventType, RunEventOf, RunEventHandler, RunEventBus } from './kernel/run-event-bus.js';
export { STOP_REASONS, type StopReason } from './agents/stop-reason.js';
export { SandboxesService, type SandboxPage } from './sandboxes/sandboxes-service.js';
export { ConversationsService, type Page } from './conversations/conversations-service.js';
export { conversationArchive, eventEntryName, type ConversationArchive } from './conversations/conversation-export.js';
export { MAX_WORKSPACE_FILE_BYTES, workspacePath } from './conversations/conversation-files.js';
// Types the services above name in their signatures, so that the API reference can show them.
export type { StartOptions, StopOptions } from './platform.js';
export type { PlatformReadiness, ReadinessCheck, ReadinessStatus } from './kernel/readiness.js';
export type { OutboundEventSink } from './kernel/context.js';
export type { AgentJobServices } from './agents/agent-job.js';
export type { DeliveryRecording } from './ingest/record-delivery.js';
export type { TriggerMarks } from './ingest/trigger-marks.js';
export type { RequestHeaders } from './ingest/request-headers.js';
export type { CachedWebhook, WebhookCache } from './webhooks/webhook-cache.js';
export type { OutboundDispatcher } from './outbound/dispatcher.js';
export type { SubscriptionsService } from './outbound/subscriptions-service.js';
export type { OutboundOptions } from './outbound/options.js';
