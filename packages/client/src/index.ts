/**
 * `@agent-platform/client`: a typed client for a running agent-platform service, on ky. Request
 * and response types are read from the server's route table (`ApiRoutes`), inferred from its zod
 * schemas, and any endpoint is callable by its key with `client.request`; every non-2xx answer
 * throws one {@link AgentPlatformError}. No Node built-in is used at run time, and nothing of the
 * server: it works in browsers too.
 * @module
 */
export { createClient, type AgentPlatformClient, type ClientOptions, type RetryOptions } from './client.js';
export {
  AgentPlatformConnectionError,
  AgentPlatformError,
  AgentPlatformTimeoutError,
  AgentPlatformWaitError,
  isAgentPlatformConnectionError,
  isAgentPlatformError,
  isAgentPlatformWaitError,
  type AgentPlatformErrorCode,
  type AgentPlatformErrorInit,
  type ConnectionFailure,
  type WaitSubject,
} from './transport/errors.js';
export type { CallOptions } from './transport/transport.js';
export type { StreamEventsOptions } from './conversation-events/event-stream.js';
export { collect, MAX_PAGE_SIZE, type IterateOptions } from './iteration/paging.js';
export type { WaitOptions } from './iteration/polling.js';
export type { ReadyStartTask } from './namespaces/conversations.js';
export type { AuditIterateOptions } from './namespaces/audit.js';
export type { DeliveryIterateOptions } from './namespaces/deliveries.js';
export type { MessageIterateOptions } from './namespaces/subscriptions.js';
export * from './vocabulary.js';
export type { EventBody, SendEventInput, SendGitHubInput } from './namespaces/events.js';
export type {
  ApiRoutes,
  BinaryRouteKey,
  CredentialScheme,
  JsonRouteKey,
  RequestRouteKey,
  RouteArgs,
  RouteBody,
  RouteInit,
  RouteKey,
  RouteParams,
  RouteQuery,
  RouteResponse,
  RouteResponseType,
  RouteRole,
  StreamRouteKey,
  TextRouteKey,
} from './transport/routes.js';
export type * from './transport/types.js';
export { isAgentEvent } from './conversation-events/agent-events.js';
