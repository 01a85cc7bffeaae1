/**
 * The request and response types of the API, all inferred from core's zod schemas (the same
 * schemas the server validates with and builds its OpenAPI document from). Nothing here is
 * written by hand: a field added to a schema shows up in the client's types.
 * @module
 */
import type {
  appConversationSchema,
  conversationEventSchema,
  CursorPageOf,
  sandboxSchema,
  sandboxSpecSchema,
  startTaskSchema,
} from '@agent-platform/core/schemas';

export type {
  AgentConversationEvent,
  AgentEventData,
  AgentEventKind,
  ApiKeyCreateInput,
  ApiKeyList,
  ApiKeyView,
  AppConversation,
  Automation,
  AutomationCreateInput,
  AutomationDispatchInput,
  AutomationList,
  AutomationUpdateInput,
  ConversationEvent,
  CreatedApiKey,
  CreatedWebhook,
  CursorQueryInput,
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
export type SandboxPage = CursorPageOf<typeof sandboxSchema>;
/** A page of sandbox specs. */
export type SandboxSpecPage = CursorPageOf<typeof sandboxSpecSchema>;
/** A page of the caller's conversations. */
export type AppConversationPage = CursorPageOf<typeof appConversationSchema>;
/** A page of a conversation's events. */
export type ConversationEventPage = CursorPageOf<typeof conversationEventSchema>;
/** A page of start tasks. */
export type StartTaskPage = CursorPageOf<typeof startTaskSchema>;
