/**
 * The request and response types of the API, all inferred from core's zod schemas (the same
 * schemas the server validates with and builds its OpenAPI document from), directly or through
 * the server's route table. Nothing here is written by hand: a field added to a schema shows up
 * in the client's types.
 * @module
 */
import type { RouteBody, RouteQuery, RouteResponse } from './routes.js';

export type {
  AgentConversationEvent,
  AgentEventData,
  AgentEventKind,
  ApiKeyCreateInput,
  ApiKeyList,
  ApiKeyView,
  AppConversation,
  AppConversationUpdateInput,
  AuditEntry,
  AuditPage,
  AuditVerification,
  Automation,
  AutomationCreateInput,
  AutomationDispatchInput,
  AutomationHealth,
  AutomationList,
  AutomationUpdateInput,
  AutomationValidateInput,
  AutomationValidation,
  AutomationValidationResult,
  BudgetInput,
  BudgetList,
  BudgetPeriod,
  BudgetScope,
  BudgetView,
  ConversationEvent,
  CreatedApiKey,
  CreatedWebhook,
  CurrentApiKey,
  CursorQueryInput,
  CustomSecret,
  CustomSecretCreateInput,
  CustomSecretPage,
  CustomSecretUpdateInput,
  Delivery,
  DeliveryList,
  DeliveryListQueryInput,
  DeliveryOutcome,
  DeliveryStatus,
  DeliverySummary,
  ErrorCode,
  IngestResult,
  MemberList,
  MemberRoleInput,
  MembershipRecord,
  MessageResponse,
  MetricsSnapshot,
  OrgRunPage,
  OrgRunsQueryInput,
  PageQueryInput,
  ProviderTokensInput,
  ProviderType,
  RotatedWebhook,
  Run,
  RunReport,
  RunList,
  RunStatus,
  SendMessageInput,
  Sandbox,
  SandboxSpec,
  SandboxStartInput,
  SandboxStatus,
  ServiceStatus,
  SettingsInput,
  SettingsView,
  SignatureScheme,
  StartConversationInput,
  StartTask,
  SuccessResponse,
  TokenUsage,
  Usage,
  UsageTotals,
  UnsetProviderTokensInput,
  ValidationIssue,
  WebhookCreateInput,
  WebhookList,
  WebhookRotateInput,
  WebhookUpdateInput,
  WebhookView,
} from '@agent-platform/core/schemas';

/** A page of the caller's sandboxes. */
export type SandboxPage = RouteResponse<'GET /api/v1/sandboxes/search'>;
/** A page of sandbox specs. */
export type SandboxSpecPage = RouteResponse<'GET /api/v1/sandbox-specs/search'>;
/** A page of the caller's conversations. */
export type AppConversationPage = RouteResponse<'GET /api/v1/app-conversations/search'>;
/** A page of a conversation's events. */
export type ConversationEventPage = RouteResponse<'GET /api/v1/app-conversations/{id}/events'>;
/** A page of start tasks. */
export type StartTaskPage = RouteResponse<'GET /api/v1/app-conversations/start-tasks/search'>;
/** The query of `secrets.list`: `name__contains` (case-insensitive), `page_id`, `limit` 1–100. */
export type CustomSecretSearchQueryInput = RouteQuery<'GET /api/v1/secrets/search'>;

// Outbound-event subscriptions: read from the route table, which holds core's schemas for them
// (core's browser-safe `schemas` entry does not export them).
/** Body of `subscriptions.create`: `url`, `event_types`, optional `description` and `enabled`. */
export type SubscriptionCreateInput = RouteBody<'POST /api/automation/v1/subscriptions'>;
/** Body of `subscriptions.update`: any subset of `url`, `event_types`, `description`, `enabled`. */
export type SubscriptionUpdateInput = RouteBody<'PATCH /api/automation/v1/subscriptions/{subscription_id}'>;
/** A subscription as the API returns it: never its secret. */
export type Subscription = RouteResponse<'GET /api/automation/v1/subscriptions/{subscription_id}'>;
/** The answer to create and rotate: the subscription and its signing secret, shown only then. */
export type SubscriptionWithSecret = RouteResponse<'POST /api/automation/v1/subscriptions'>;
/** A page of subscriptions with `total`. */
export type SubscriptionList = RouteResponse<'GET /api/automation/v1/subscriptions'>;
/** What a subscription can ask to be told about (`run.failed`, ...). */
export type OutboundEventType = Subscription['event_types'][number];
/** One event sent (or to be sent) to a subscriber, with every attempt. */
export type OutboundMessage = RouteResponse<'GET /api/automation/v1/subscriptions/{subscription_id}/messages/{message_id}'>;
/** `pending`, `delivered`, `failed` or `cancelled`. */
export type OutboundMessageStatus = OutboundMessage['status'];
/** One try at sending a message: status code (`null` without an answer), latency, error. */
export type OutboundAttempt = OutboundMessage['attempts'][number];
/** A page of a subscription's messages with `total`. */
export type OutboundMessageList = RouteResponse<'GET /api/automation/v1/subscriptions/{subscription_id}/messages'>;
/** The query of `subscriptions.listMessages`: `status`, `limit` 1–100, `offset`. */
export type OutboundMessageListQueryInput = RouteQuery<'GET /api/automation/v1/subscriptions/{subscription_id}/messages'>;

/** The query of `budgets.usage`: `from` and `to` (UTC days, `YYYY-MM-DD`, both included); default the last 30 days. */
export type UsageQueryInput = RouteQuery<'GET /api/automation/v1/usage'>;

/** The query of `audit.list` and `audit.export`: `limit` 1–500, `after` (a `seq`), `action`, `actor`, `target_type`, `target_id`, `since`, `until`. */
export type AuditQueryInput = RouteQuery<'GET /api/automation/v1/audit'>;

/** The query of `overview.get`: `from` and `to` (ISO instants, `to` excluded; default the last 7 days) and `bucket` (`hour` or `day`). */
export type OverviewQueryInput = RouteQuery<'GET /api/automation/v1/overview'>;
