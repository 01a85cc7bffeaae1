/**
 * The framework-neutral HTTP handler: routing, authentication, body parsing and error mapping,
 * written once. The Fastify, Express and fetch bindings only convert requests and responses.
 * @module
 */
import { PlatformError, type AgentPlatform, type Principal } from '@agent-platform/core';
import { readJsonBody, headerValue, tooLarge } from './body.js';
import { errorResponse, jsonResponse, type HandlerLogger } from './error-response.js';
import { buildOpenApiDocument, type OpenApiInfo } from './openapi.js';
import { Router } from './router.js';
import { apiKeyRoutes } from './routes/api-key-routes.js';
import { settingsRoutes } from './routes/settings-routes.js';
import { systemRoutes } from './routes/system-routes.js';
import { webhookRoutes } from './routes/webhook-routes.js';
import { automationRoutes } from './routes/automation-routes.js';
import { deliveryRoutes } from './routes/delivery-routes.js';
import { eventRoutes } from './routes/event-routes.js';
import { sandboxRoutes } from './routes/sandbox-routes.js';
import { conversationRoutes } from './routes/conversation-routes.js';
import type { HttpRequest, HttpResponse, RouteDefinition } from './types.js';

export interface HttpHandlerOptions {
  /** Largest JSON body accepted by API routes, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Where unexpected errors are reported (a pino logger fits). */
  logger?: HandlerLogger;
  /** Title and version shown in `/openapi.json`. */
  openapi?: OpenApiInfo;
}

export interface HttpHandler {
  /** Serves a request; `null` when no route has the path (bindings pass it on, or answer 404). */
  handle(request: HttpRequest): Promise<HttpResponse | null>;
  /** Every route, for bindings that register them one by one and for documentation. */
  readonly routes: readonly RouteDefinition[];
  /** The largest body any route accepts: bindings stop reading beyond it. */
  readonly maxRequestBytes: number;
  openApiDocument(): Record<string, unknown>;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export const allRoutes = (): RouteDefinition[] => [
  ...systemRoutes,
  ...settingsRoutes,
  ...apiKeyRoutes,
  ...webhookRoutes,
  ...eventRoutes,
  ...deliveryRoutes,
  ...automationRoutes,
  ...sandboxRoutes,
  ...conversationRoutes,
];

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** What routes that need no credentials (health, readiness) see as their principal; they never use it. */
const ANONYMOUS: Principal = Object.freeze({ userId: '', orgId: '' });

/** The API key from `X-Session-API-Key` or `Authorization: Bearer`; both work everywhere. */
export function readApiKey(headers: HttpRequest['headers']): string | undefined {
  const session = headerValue(headers['x-session-api-key'])?.trim();
  if (session) return session;
  return BEARER.exec(headerValue(headers.authorization) ?? '')?.[1];
}

/**
 * @example
 * ```ts
 * const handler = createHttpHandler(platform);
 * const response = await handler.handle({ method: 'GET', url: '/health', headers: {}, body: null });
 * ```
 */
export function createHttpHandler(platform: AgentPlatform, options: HttpHandlerOptions = {}): HttpHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const routes = allRoutes();
  const openapiRoute: RouteDefinition = {
    method: 'GET',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This document',
    tag: 'system',
    auth: false,
    responses: { 200: { description: 'The OpenAPI 3.1 document' } },
    handle: async () => ({ status: 200, body: openApiDocument() }),
  };
  routes.push(openapiRoute);
  const router = new Router(routes);
  let cachedDocument: Record<string, unknown> | undefined;
  const openApiDocument = () => (cachedDocument ??= buildOpenApiDocument(routes, options.openapi));
  const maxRequestBytes = Math.max(maxBodyBytes, platform.maxEventBodyBytes, ...routes.map((route) => route.maxBodyBytes ?? 0));

  async function authenticate(request: HttpRequest): Promise<Principal> {
    const apiKey = readApiKey(request.headers);
    const principal = apiKey ? await platform.authenticate({ apiKey }) : null;
    if (!principal) throw new PlatformError('UNAUTHORIZED', apiKey ? 'Invalid API key' : 'Missing API key: send X-Session-API-Key or Authorization: Bearer');
    return principal;
  }

  async function handle(request: HttpRequest): Promise<HttpResponse | null> {
    const url = new URL(request.url, 'http://localhost');
    const match = router.match(request.method.toUpperCase(), url.pathname);
    if (match.kind === 'not-found') return null;
    if (match.kind === 'method-not-allowed') {
      return jsonResponse(405, { detail: 'Method not allowed' }, { allow: match.allow.join(', ') });
    }
    const { route, params } = match;
    try {
      const principal = route.auth === false ? ANONYMOUS : await authenticate(request);
      const raw = request.body ?? new Uint8Array();
      const limit = route.maxBodyBytes ?? maxBodyBytes;
      let body: unknown;
      if (route.rawBody) {
        // The route checks size and content itself.
      } else if (route.body) {
        body = readJsonBody(raw, request.headers['content-type'], limit);
        if (body === undefined && route.body.required) {
          throw new PlatformError('VALIDATION_FAILED', 'Request body is required', {
            issues: [{ loc: ['body'], msg: 'Field required', type: 'missing' }],
          });
        }
      } else if (raw.byteLength > limit) {
        throw tooLarge(limit);
      }
      const result = await route.handle({ platform, principal, params, query: url.searchParams, headers: request.headers, body, rawBody: raw });
      return jsonResponse(result.status, result.body);
    } catch (error) {
      return errorResponse(error, options.logger);
    }
  }

  return { handle, routes, maxRequestBytes, openApiDocument };
}
