/**
 * `@agent-platform/http`: the platform's HTTP API, written once against a plain
 * request/response shape. Mount it with `@agent-platform/http/fastify` or
 * `@agent-platform/http/express`, or serve `createFetchHandler` anywhere `fetch` handlers run.
 * @module
 */
export {
  createHttpHandler,
  readApiKey,
  allRoutes,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_JSON_DEPTH,
  type HttpHandler,
  type HttpHandlerOptions,
} from './handler.js';
export { createFetchHandler, type FetchHandler } from './fetch.js';
export { CONSOLE_CONTENT_SECURITY_POLICY, CONSOLE_PATH } from './console/console-routes.js';
export { CSRF_HEADER, SIGN_IN_PATHS } from './auth/oidc-sign-in.js';
export { oidcSignInOptionsSchema, roleMappingSchema, type OidcSignInOptions, type RoleMapping } from './auth/oidc-options.js';
export { buildOpenApiDocument, type OpenApiInfo } from './openapi/openapi.js';
export { errorResponse, jsonResponse, HttpError, statusDetail, type HandlerLogger } from './exchange/error-response.js';
export { MAX_PATH_PARAM_LENGTH } from './exchange/request-checks.js';
export { DEFAULT_SSE_HEARTBEAT_MS, formatServerSentEvent } from './streaming/sse.js';
export type {
  HeaderValue,
  HttpMethod,
  HttpRequest,
  HttpResponse,
  RouteContext,
  RouteDefinition,
  RouteResponseDoc,
  RouteResult,
  ServerSentEvent,
} from './exchange/types.js';
export {
  defineRoute,
  credentialOf,
  isDefinedRoute,
  type AnyDefinedRoute,
  type AnyRoute,
  type ApiRouteEntry,
  type ApiRoutesOf,
  type BinaryResponse,
  type BodyOf,
  type ContentHeaders,
  type Credential,
  type DefinedRoute,
  type FieldsSchema,
  type ParamsOf,
  type PathParamNames,
  type PathParams,
  type QueryOf,
  type ResponseOf,
  type ResponseType,
  type ResponseTypeOf,
  type RouteBody,
  type RouteResponses,
  type RouteResultOf,
  type RouteSpec,
  type SuccessBodyOf,
  type SuccessStatus,
  type SuccessStatusOf,
} from './routing/define-route.js';
export { attachment, contentResponse, responseKind, type ResponseKind, type ResponseKindOf } from './routing/response-kind.js';
export { routeGroups, type ApiRoutes, type RouteKey } from './routes/route-table.js';
export { nameSchema, schemaName } from './openapi/schema-names.js';
