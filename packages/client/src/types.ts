/**
 * The request and response types of the API, all inferred from core's zod schemas (the same
 * schemas the server validates with and builds its OpenAPI document from), directly or through
 * the server's route table. Nothing here is written by hand: a field added to a schema shows up
 * in the client's types.
 * @module
 */
import type { RouteQuery, RouteResponse } from './routes.js';

export type {
  AgentConversationEvent,
  AgentEventData,
  AgentEventKind,
  ApiKeyCreateInput,
  ApiKeyList,
  ApiKeyView,
  AppConversation,
  AppConversationUpdateInput,
  Automation,
  AutomationCreateInput,
  AutomationDispatchInput,
  AutomationHealth,
  AutomationList,
  AutomationUpdateInput,
  AutomationValidateInput,
  AutomationValidation,
  AutomationValidationResult,
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
  MessageResponse,
  MetricsSnapshot,
  PageQueryInput,
  ProviderTokensInput,
  ProviderType,
  RotatedWebhook,
  Run,
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
