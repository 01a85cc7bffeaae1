/**
 * `@agent-platform/http/express`: the API as an Express router, and what an Express host needs
 * around it so every answer has the API's `{"detail": ...}` shape: {@link hardenNodeServer} for
 * the server (timeouts, Node's own refusals), {@link expressNotFoundHandler} and
 * {@link expressErrorHandler} after the routes.
 * @module
 */
import { PlatformError, type AgentPlatform } from '@agent-platform/core';
import { Router, type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { errorResponse, HttpError, jsonResponse, statusDetail, type HandlerLogger } from './exchange/error-response.js';
import { createHttpHandler, DEFAULT_BODY_TIMEOUT_MS, type HttpHandlerOptions } from './handler.js';
import { readNodeBody } from './node-http/node-body.js';
import { nodeRequestHeaders } from './node-http/node-request.js';
import { sendNodeResponse } from './node-http/node-response.js';
import type { HttpResponse } from './exchange/types.js';

export { hardenNodeServer, handleClientError, type ServerLimits } from './node-http/node-server.js';
export { attachEventSockets, type EventSockets, type EventSocketsOptions } from './streaming/event-sockets.js';

export interface ExpressRouterOptions extends HttpHandlerOptions {
  platform: AgentPlatform;
}

/** The router, and a way to end its open event streams on shutdown. */
export type ExpressRouter = Router & {
  /** Ends every open Server-Sent Events stream (they would hold `server.close()`). */
  closeStreams(): Promise<void>;
};

/** The body Express already read, when a parser ran before this router. */
function alreadyParsedBody(request: Request): Uint8Array | null {
  const body: unknown = request.body;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body);
  // A JSON parser mounted earlier consumed the stream: re-serialize (signatures need the raw
  // bytes, so mount this router before any body parser).
  if (body !== undefined && body !== null && request.readableEnded) return Buffer.from(JSON.stringify(body));
  return null;
}

/**
 * Mount it before any body parser, so it reads the raw body itself (within `bodyTimeoutMs`,
 * else 408):
 * @example
 * ```ts
 * const app = express();
 * app.use(createExpressRouter({ platform }));
 * app.use(expressNotFoundHandler());
 * app.use(expressErrorHandler());
 * const server = hardenNodeServer(app.listen(3000));
 * attachEventSockets(server, { platform }); // the WebSocket at /sockets/events/{id}
 * ```
 * Event streams (Server-Sent Events) stay open until their client leaves, and so would hold
 * `server.close()`: on shutdown, call the router's `closeStreams()` (and the sockets' `close()`).
 */
export function createExpressRouter(options: ExpressRouterOptions): ExpressRouter {
  const { platform, ...handlerOptions } = options;
  const handler = createHttpHandler(platform, handlerOptions);
  const bodyTimeoutMs = handlerOptions.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const router = Router();

  router.use(async (request: Request, response: Response, next: NextFunction) => {
    try {
      const body =
        alreadyParsedBody(request) ??
        (request.method === 'GET' || request.method === 'HEAD' ? null : await readNodeBody(request, handler.maxRequestBytes, { timeoutMs: bodyTimeoutMs }));
      const result = await handler.handle({
        method: request.method,
        url: request.originalUrl.slice(request.baseUrl.length) || '/',
        headers: nodeRequestHeaders(request),
        body,
      });
      if (!result) return next();
      await sendNodeResponse(response, result, handlerOptions.logger);
    } catch (error) {
      send(response, errorResponse(error, handlerOptions.logger));
    }
  });
  return Object.assign(router, { closeStreams: () => handler.closeStreams() });
}

function send(response: Response, result: HttpResponse): void {
  void sendNodeResponse(response, result);
}

/** Answers 404 `{"detail": "Not Found"}` for whatever no route took. Mount it after every route. */
export function expressNotFoundHandler(): RequestHandler {
  return (_request, response) => send(response, jsonResponse(404, { detail: 'Not Found' }));
}

/**
 * Answers errors of the host's own middleware in the API's shape: a 4xx an error states
 * (`status` / `statusCode`, as Express and its parsers set them) with a fixed text for that
 * status, never the error's message (it can quote the request); anything else a logged 500.
 * Mount it last.
 */
export function expressErrorHandler(options: { logger?: HandlerLogger } = {}): ErrorRequestHandler {
  return (error: unknown, _request, response, _next) => {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const stated = (error as { status?: unknown; statusCode?: unknown } | null) ?? {};
    const status = typeof stated.status === 'number' ? stated.status : typeof stated.statusCode === 'number' ? stated.statusCode : undefined;
    const known = error instanceof HttpError || error instanceof PlatformError;
    if (!known && status !== undefined && status >= 400 && status < 500) {
      // body-parser's JSON failures say so; their messages quote the body, so none is passed on.
      const type = (error as { type?: unknown }).type;
      send(response, jsonResponse(status, { detail: type === 'entity.parse.failed' ? 'Request body is not valid JSON' : statusDetail(status) }));
      return;
    }
    send(response, errorResponse(error, options.logger));
  };
}
