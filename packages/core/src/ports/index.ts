/**
 * The ports an embedder passes in (and may implement), as the main entry exports them. Their
 * adapter-only helpers (`RUN_PATCH_FIELDS`, `OUTBOUND_MESSAGE_PATCH_FIELDS`, `interruptedReason`)
 * are exported by the adapter kit instead.
 * @module
 */
export type { Authenticator, Credentials } from './authenticator.js';
export { systemClock, type Clock } from './clock.js';
export { randomIdGenerator, type IdGenerator } from './id-generator.js';
export type { SecretBox } from './secret-box.js';
export {
  HostError,
  type AnswerChannel,
  type AnswerHost,
  type AnswerThread,
  type HostThreadAction,
  type HostToolsInput,
  type OpenedChangeRequest,
  type PostedAnswer,
} from './answer-host.js';
export type { SolvabilityEstimate, SolvabilityEstimator } from './solvability.js';
export type { ActionToRate, SecurityAnalyzer, SecurityContext } from './security-analyzer.js';
export type { AuditFilter, AuditRepository } from './audit-repository.js';
export type { ConsoleSessionsRepository, MembershipsRepository } from './sign-in-repository.js';
export type { BudgetsRepository, SpendQuery, SpendRepository, SpendTotalKey } from './spend-repository.js';
export {
  StorageConflictError,
  StorageUnavailableError,
  type ApiKeysRepository,
  type AutomationsRepository,
  type ConversationsRepository,
  type ConversationGuard,
  type ConversationPatch,
  type CursorOptions,
  type CursorPage,
  type SandboxesRepository,
  type StartTasksRepository,
  type DedupClaim,
  type DeliveryWrite,
  type DeliveriesRepository,
  type DeliveryListOptions,
  type GithubLinksRepository,
  type RunsRepository,
  type RunReportsRepository,
  type ThreadsRepository,
  type RunQueueSummary,
  type OrgRunsFilter,
  type RunGuard,
  type RunPatch,
  type ListOptions,
  type ListResult,
  type ProviderTokensRepository,
  type SettingsRepository,
  type StorageAdapter,
  type StorageRepositories,
  type WebhooksRepository,
  type SubscriptionsRepository,
  type OutboundMessagesRepository,
  type OutboundMessageListOptions,
  type OutboundClaim,
  type OutboundMessageGuard,
  type OutboundMessagePatch,
} from './storage.js';
export * from './runs-overview.js';
export type {
  ExecEvent,
  ExecInput,
  ExecResult,
  RuntimeSandbox,
  SandboxFile,
  SandboxLimits,
  SandboxRuntime,
  StartSandboxInput,
} from './sandbox-runtime.js';
export type { ChangeFeed, ChangeListener, PublishedChange, StorageChange } from './change-feed.js';
export type {
  ClaimRequest,
  RecoveredRuns,
  RunCompletion,
  RunQueue,
  RunQueueLimits,
  RunRef,
  RunRelease,
} from './run-queue.js';
