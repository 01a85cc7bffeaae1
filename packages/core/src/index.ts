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
export { currentRequestId, requestIdFrom, withRequestId } from './audit/request-scope.js';
export { BudgetsService, MAX_USAGE_DAYS, DEFAULT_USAGE_DAYS } from './budgets/budgets-service.js';
export { OverviewService, MAX_OVERVIEW_DAYS, MAX_HOURLY_OVERVIEW_DAYS, DEFAULT_OVERVIEW_DAYS } from './overview/overview-service.js';
export { SpendControl, SpendMeter, describeBreach, type BudgetBreach, type Spender } from './spend/spend-control.js';
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
export {
  ConsoleSessions,
  DEFAULT_CONSOLE_SESSION_TTL_MS,
  type AuthenticatedSession,
  type ConsoleSessionsOptions,
  type OpenedSession,
  type SignInIdentity,
} from './sign-in/console-sessions.js';
export { csrfTokenFor, csrfTokenMatches, hashSessionId } from './sign-in/session-material.js';
export { MembersService } from './sign-in/members-service.js';
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
export type { ActorTrust, HostLookups, HostRoleLookup, RoleLookup, SlackUserGroupLookup, TrustDecision } from './threads/actor-trust.js';
export { actorOf, inboundHostName, inboundHostOf } from './threads/inbound-hosts.js';
export type { EventKeyResult, InboundHeaders, InboundHost, InboundHostName, InboundThread, InboundThreadResult } from './inbound/inbound-host.js';
export { gitlabInbound } from './inbound/gitlab.js';
export { bitbucketInbound } from './inbound/bitbucket.js';
export { SLACK_APPROVE_ACTION, SLACK_REJECT_ACTION, slackInbound } from './inbound/slack.js';
export { SOURCE_KINDS, sourceKindOf, type KindPreset, type SourceKind } from './webhooks/source-kinds.js';
export type { EventActor } from './threads/event-actor.js';
export type { GitHubApi, GitHubComment, GitHubRepository, ReactionTarget, RepositoryRole } from './github/github-api.js';
export type { GitHubToolScope } from './github/github-tools.js';
export { createGitHubAnswerHost, type GitHubAnswerHostOptions } from './hosts/github-answer-host.js';
export { createGitLabAnswerHost, gitlabAnswerThread, isGitLabSource, type GitLabAnswerHostOptions } from './hosts/gitlab-answer-host.js';
export {
  createGitLabApi,
  GitLabError,
  gitlabApiBaseUrl,
  GITLAB_ACCESS_LEVELS,
  type GitLabApi,
  type GitLabNote,
  type GitLabNoteable,
} from './hosts/gitlab-api.js';
export {
  createGitLabAgentTools,
  gitlabToolScope,
  type AgentGitLabTools,
  type GitLabToolScope,
  type GitLabToolThread,
  type GitLabToolsOptions,
} from './hosts/gitlab-tools.js';
export { createGitLabRoleLookup, roleOfAccessLevel, type GitLabRoleLookupOptions } from './hosts/gitlab-roles.js';
export {
  BITBUCKET_HOST,
  bitbucketEventThread,
  createBitbucketAnswerHost,
  isBitbucketSource,
  type BitbucketAnswerHostOptions,
} from './hosts/bitbucket-answer-host.js';
export {
  BitbucketError,
  bitbucketApiBaseUrl,
  bitbucketRepositoryOf,
  createBitbucketApi,
  type BitbucketApi,
  type BitbucketComment,
  type BitbucketRepository,
} from './hosts/bitbucket-api.js';
export { createBitbucketAgentTools, BITBUCKET_REPOSITORY_PATTERN, type BitbucketToolOptions, type BitbucketToolScope } from './hosts/bitbucket-tools.js';
export { createBitbucketRoleLookup, type BitbucketRoleLookupOptions } from './hosts/bitbucket-roles.js';
export { bitbucketRepositoryTarget } from './agents/bitbucket-repository.js';
export { createSlackAnswerHost, type SlackAnswerHostOptions } from './hosts/slack-answer-host.js';
export { createSlackUserGroupLookup, type SlackUserGroupLookupOptions } from './hosts/slack-user-groups.js';
export { SLACK_HOST, type SlackLocator } from './hosts/slack-thread.js';
export { createSlackAgentTools, slackToolScope, type SlackAgentToolsOptions, type SlackToolScope } from './hosts/slack-tools.js';
export {
  createSlackApi,
  SlackError,
  type SlackApi,
  type SlackBlock,
  type SlackIdentity,
  type SlackMessageInput,
  type SlackMetadata,
  type SlackPosted,
  type SlackThreadMessage,
} from './hosts/slack-api.js';
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
  AgentHostTools,
  GitHubThread,
  AgentRunInput,
  AgentRunner,
  AgentSettings,
  ConfirmationDecision,
  PendingAction,
} from './ports/agent-runner.js';
export { createCommandAgentRunner, type CommandAgentRunnerOptions } from './agents/command-agent-runner.js';
export { emptyAgentSettings } from './agents/agent-environment.js';
export {
  AGENT_NAMES,
  agentCatalog,
  catalogOf,
  chooseAgent,
  createAgentRouter,
  type AgentCatalog,
  type AgentChoice,
  type AgentRouter,
  type AgentRouterOptions,
} from './agents/agent-router.js';
// Security analyzers: the built-in `policy` rules, the confirmation threshold, the names owners may save.
export { createPolicyAnalyzer } from './security/policy-analyzer.js';
export { DEFAULT_CONFIRMATION_THRESHOLD, requiresConfirmation, worstRating } from './security/confirmation.js';
export { BUILT_IN_SECURITY_ANALYZERS, securityAnalyzerNames } from './security/analyzer-names.js';
export { createAgentPlatformTools } from './automations/agent-tools.js';
export { RunExecutor, type RunExecutorOptions } from './runs/run-executor.js';
export type { RunEvent, RunEventType, RunEventOf, RunEventHandler, RunEventBus } from './kernel/run-event-bus.js';
export { STOP_REASONS, type StopReason } from './agents/stop-reason.js';
export { SandboxesService, type SandboxPage } from './sandboxes/sandboxes-service.js';
export { EgressRecorder, type SandboxEgressEvent } from './sandboxes/egress-record.js';
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
