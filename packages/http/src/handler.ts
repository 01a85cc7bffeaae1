/**
 * The framework-neutral HTTP handler: routing, authentication, body parsing and error mapping,
 * written once. The Fastify, Express and fetch bindings only convert requests and responses.
 * @module
 */
import { PlatformError, parseInput, requestIdFrom, requireRole, withRequestId, type AgentPlatform, type Principal, MAX_JSON_DEPTH } from '@agent-platform/core';
import { readJsonBody, tooLarge } from './exchange/body.js';
import { errorResponse, jsonResponse, type HandlerLogger } from './exchange/error-response.js';
import { checkQuery, decodePathParams, paramsDecode, splitTarget } from './exchange/request-checks.js';
import { buildOpenApiDocument, type OpenApiInfo } from './openapi/openapi.js';
import { Router } from './routing/router.js';
import { allRoutes } from './routes/route-table.js';
import { parseRouteInput } from './routing/route-input.js';
import { credentialOf, isDefinedRoute, type AnyDefinedRoute, type AnyRoute } from './routing/define-route.js';
import { openApiRoute } from './routes/system-routes.js';
import { contentResponse, responseKind } from './routing/response-kind.js';
import { missingKeyMessage, readApiKey } from './exchange/api-key-header.js';
import { DEFAULT_SSE_HEARTBEAT_MS, serverSentEventsResponse } from './streaming/sse.js';
import { CONSOLE_PATHS, isConsolePath, serveConsole } from './console/console-routes.js';
import type { HttpRequest, HttpResponse, RouteResult } from './exchange/types.js';
import { createOidcSignIn, SIGN_IN_PATHS } from './auth/oidc-sign-in.js';
import type { OidcSignInOptions } from './auth/oidc-options.js';

export { allRoutes };

export { readApiKey };

export interface HttpHandlerOptions {
  /** Largest JSON body accepted by API routes, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Where unexpected errors are reported (a pino logger fits). */
  logger?: HandlerLogger;
  /** Title and version shown in `/openapi.json`. */
  openapi?: OpenApiInfo;
  /**
   * How long a request body may take to arrive, in milliseconds, in the bindings that read it
   * (Fastify, Express); past it the answer is 408 and the connection is closed. Default 30 s;
   * `0` disables it.
   */
  bodyTimeoutMs?: number;
  /** Deepest nesting of arrays and objects accepted in a JSON body (400 beyond). Default 128. */
  maxJsonDepth?: number;
  /**
   * How long a Server-Sent Events stream may stay silent before a `: ping` comment is sent, in
   * milliseconds (also the WebSocket ping interval). Default 15 s; `0` sends none.
   */
  heartbeatMs?: number;
  /**
   * Whether the web console is served at `/console` (beside the API, outside its route table and
   * OpenAPI document; see `@agent-platform/console`). Default true; `false` leaves `/console` to
   * the host (a 404 from the bindings).
   */
  console?: boolean;
  /**
   * Console sign-in with OpenID Connect (authorization code with PKCE), beside API keys: serves
   * `/auth/oidc/login`, `/auth/oidc/callback`, `/auth/signout` and `/auth/session` (outside the
   * route table and the OpenAPI document, like the console), and lets a request with no API key
   * authenticate with the session cookie — an unsafe method only with its `X-CSRF-Token`. See
   * `docs/sign-in.md`. Checked when the handler is created (a bad option throws).
   */
  oidc?: OidcSignInOptions;
}

export interface HttpHandler {
  /** Serves a request; `null` when no route has the path (bindings pass it on, or answer 404). */
  handle(request: HttpRequest): Promise<HttpResponse | null>;
  /** Every route (`/openapi.json` too), for bindings that register them one by one and for documentation. */
  readonly routes: readonly AnyRoute[];
  /**
   * Paths served besides `routes`, in Fastify's syntax (`/console/*`): the web console's, or none
   * when it is off. For bindings that register paths one by one; not part of the API.
   */
  readonly assetPaths: readonly string[];
  /** The largest body any route accepts: bindings stop reading beyond it. */
  readonly maxRequestBytes: number;
  openApiDocument(): Record<string, unknown>;
  /**
   * Ends every stream in progress (the server is closing: an open stream would keep it open).
   * Each stream's iterator is returned, which stops its watcher; the bindings end the answers.
   */
  closeStreams(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Default {@link HttpHandlerOptions.bodyTimeoutMs}: 30 s. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Default {@link HttpHandlerOptions.maxJsonDepth}: the engine's own limit for inbound event bodies. */
export const DEFAULT_MAX_JSON_DEPTH = MAX_JSON_DEPTH;

/** The methods the API answers, with 405 for one its path does not take. */
const SERVED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** What routes that need no credentials (health, readiness) see as their principal; they never use it. */
const ANONYMOUS: Principal = Object.freeze({ userId: '', orgId: '' });

/**
 * @example
 * ```ts
 * const handler = createHttpHandler(platform);
 * const response = await handler.handle({ method: 'GET', url: '/health', headers: {}, body: null });
 * ```
 */
export function createHttpHandler(platform: AgentPlatform, options: HttpHandlerOptions = {}): HttpHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxJsonDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const routes = allRoutes();
  // Served with this handler's own document.
  const servedOpenApiRoute: AnyDefinedRoute = { ...openApiRoute, handle: async () => ({ status: 200, body: openApiDocument() }) };
  routes.push(servedOpenApiRoute);
  const router = new Router(routes);
  let cachedDocument: Record<string, unknown> | undefined;
  const openApiDocument = () => (cachedDocument ??= buildOpenApiDocument(routes, options.openapi));
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
  const openStreams = new Set<AsyncIterator<string>>();
  const maxRequestBytes = Math.max(maxBodyBytes, platform.maxEventBodyBytes, ...routes.map((route) => route.maxBodyBytes ?? 0));
  const servesConsole = options.console ?? true;
  const signIn = options.oidc ? createOidcSignIn(options.oidc, { storage: platform.storage, logger: options.logger }) : null;

  async function authenticate(request: HttpRequest, conversationId?: string): Promise<Principal> {
    const apiKey = readApiKey(request.headers);
    // No key: the console's session cookie, when sign-in is on. A key always wins over a cookie.
    if (!apiKey && signIn) {
      const fromCookie = await signIn.authenticate(request);
      if (fromCookie) return fromCookie;
    }
    let principal = apiKey ? await platform.authenticate({ apiKey }) : null;
    if (!principal && apiKey && conversationId) principal = await platform.conversations.authenticateSessionKey(apiKey, conversationId);
    if (!principal)
      throw new PlatformError('UNAUTHORIZED', apiKey ? 'Invalid API key' : missingKeyMessage(request.headers, 'X-Session-API-Key or Authorization: Bearer'));
    return principal;
  }

  /**
   * Serves `request` as one request of its id (the caller's `X-Request-Id` when it is a sane one,
   * else a new one): what it records (audit entries) names it, and the answer carries it back.
   */
  async function handle(request: HttpRequest): Promise<HttpResponse | null> {
    const given = request.headers['x-request-id'];
    const requestId = requestIdFrom(Array.isArray(given) ? given[0] : given);
    const response = await withRequestId(requestId, () => serve(request));
    if (response) response.headers = { ...response.headers, 'x-request-id': requestId };
    return response;
  }

  async function serve(request: HttpRequest): Promise<HttpResponse | null> {
    // Other methods (OPTIONS, TRACE, WebDAV's) are left to the host, as Fastify's router leaves
    // them (it only routes these to the plugin): CORS middleware can answer OPTIONS.
    if (!SERVED_METHODS.has(request.method.toUpperCase())) return null;
    const target = splitTarget(request.url);
    if (!target) return null;
    // The web console's files: not API, so not in the route table (or the OpenAPI document).
    if (servesConsole && isConsolePath(target.path)) {
      return serveConsole(request.method, target.path, request.headers).catch((error: unknown) => errorResponse(error, options.logger));
    }
    // Console sign-in's browser redirects: not API either.
    if (signIn?.serves(target.path)) {
      return signIn.serve(request, target.path, target.query).catch((error: unknown) => errorResponse(error, options.logger));
    }
    const match = router.match(request.method.toUpperCase(), target.path);
    if (match.kind === 'not-found') return null;
    if (!paramsDecode(match.params)) return jsonResponse(404, { detail: 'Not Found' });
    if (match.kind === 'method-not-allowed') {
      return jsonResponse(405, { detail: 'Method not allowed' }, { allow: match.allow.join(', ') });
    }
    const { route } = match;
    let result: RouteResult;
    try {
      // 1. Credentials (401, or 400 for two keys), before anything about the request is judged.
      const principal =
        credentialOf(route) === 'none'
          ? ANONYMOUS
          : await authenticate(request, route.conversationKey && match.params.id ? decodeURIComponent(match.params.id) : undefined);
      // 1b. The route's role (403), before the request is judged: a viewer learns nothing from a write's validation.
      if (credentialOf(route) !== 'none') requireRole(principal, route.role ?? 'owner');
      // 2. Ids and query values no record can have stop here, before any storage call: 404, 422.
      const params = decodePathParams(route.path, match.params);
      checkQuery(target.query);
      // 3. The body as bytes: size, content type, UTF-8, JSON (413, 415, 400), and present where required (422).
      const raw = request.body ?? new Uint8Array();
      const limit = route.maxBodyBytes ?? maxBodyBytes;
      let body: unknown;
      if (route.rawBody) {
        // The route checks size and content itself.
      } else if (route.body) {
        body = readJsonBody(raw, request.headers['content-type'], limit, maxJsonDepth);
        if (body === undefined && route.body.required) {
          throw new PlatformError('VALIDATION_FAILED', 'Request body is required', {
            issues: [{ loc: ['body'], msg: 'Field required', type: 'missing' }],
          });
        }
        // JSON `null` is not "no body": the route's schema decides (an object schema answers 422).
        if (body === null && !isDefinedRoute(route)) parseInput(route.body.schema, null);
      } else if (raw.byteLength > limit) {
        throw tooLarge(limit);
      }
      const context = { platform, principal, headers: request.headers, rawBody: raw, sentBody: body };
      if (isDefinedRoute(route)) {
        // 4. The declared schemas: path parameters, query and body, one 422 for all their issues.
        result = await route.handle({ ...context, ...parseRouteInput(route, params, target.query, body) });
      } else {
        result = await route.handle({ ...context, params, query: target.query, body });
      }
    } catch (error) {
      return errorResponse(error, options.logger);
    }
    if (result.events) {
      const response = serverSentEventsResponse(result.status, result.events, heartbeatMs);
      const stream = response.stream as AsyncIterableIterator<string>;
      if (request.method.toUpperCase() === 'HEAD') {
        // The headers only: nobody reads the stream.
        await stream.return?.();
        const { stream: _unread, ...headersOnly } = response;
        return headersOnly;
      }
      return { ...response, stream: tracked(stream) };
    }
    return serialize(route, result);
  }

  /** The stream, in {@link openStreams} until it ends or is returned. */
  function tracked(stream: AsyncIterableIterator<string>): AsyncIterableIterator<string> {
    openStreams.add(stream);
    const wrapped: AsyncIterableIterator<string> = {
      async next() {
        try {
          const result = await stream.next();
          if (result.done) openStreams.delete(stream);
          return result;
        } catch (error) {
          openStreams.delete(stream);
          throw error;
        }
      },
      async return() {
        openStreams.delete(stream);
        return (await stream.return?.()) ?? { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => wrapped,
    };
    return wrapped;
  }

  async function closeStreams(): Promise<void> {
    const streams = [...openStreams];
    openStreams.clear();
    await Promise.allSettled(streams.map((stream) => stream.return?.()));
  }

  /**
   * The answer on the wire, by the kind of the response its status declares: a text or binary
   * one sent as it is, with its declared content type; JSON serialized. A body `JSON.stringify`
   * cannot serialize (a record nested too deep, stored before depth limits existed) gets the
   * route's stand-in when it has one, otherwise a logged 500; a text or binary answer whose body
   * is neither a string nor bytes is a logged 500 too. Nothing escapes as an exception.
   */
  function serialize(route: AnyRoute, result: RouteResult): HttpResponse {
    const doc = route.responses[result.status];
    const kind = responseKind(doc);
    try {
      if ((kind === 'text' || kind === 'binary') && doc?.contentType) return contentResponse(result.status, kind, doc.contentType, result.body, result.headers);
      return jsonResponse(result.status, result.body);
    } catch (error) {
      if (route.unserializable && kind === 'json') {
        try {
          return jsonResponse(result.status, route.unserializable(result.body));
        } catch {
          // fall through to the 500
        }
      }
      options.logger?.error({ err: error, route: `${route.method} ${route.path}` }, 'response could not be serialized');
      return jsonResponse(500, { detail: 'Internal server error' });
    }
  }

  const assetPaths = [...(servesConsole ? CONSOLE_PATHS : []), ...(signIn ? SIGN_IN_PATHS : [])];
  return { handle, routes, assetPaths, maxRequestBytes, openApiDocument, closeStreams };
}
