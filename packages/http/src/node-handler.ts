/**
 * The API as a plain `node:http` request listener (`http.createServer(handler)`), or as
 * connect-style middleware that passes unknown paths to `next`.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentPlatform } from '@agent-platform/core';
import { errorResponse, jsonResponse } from './exchange/error-response.js';
import { createHttpHandler, DEFAULT_BODY_TIMEOUT_MS, type HttpHandler, type HttpHandlerOptions } from './handler.js';
import { readNodeBody } from './node-http/node-body.js';
import { nodeRequestHeaders } from './node-http/node-request.js';
import { sendNodeResponse } from './node-http/node-response.js';

export interface NodeHandlerOptions extends HttpHandlerOptions {
  platform: AgentPlatform;
}

export interface NodeHandler {
  /** Serves a request; with `next`, a path the API does not have goes there, otherwise it is a 404. */
  (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void): Promise<void>;
  /** Ends the open Server-Sent Events streams (on shutdown: they would hold `server.close()`). */
  closeStreams(): Promise<void>;
  readonly handler: HttpHandler;
}

/**
 * @example
 * ```ts
 * const handler = createNodeHandler({ platform });
 * const server = hardenNodeServer(http.createServer(handler));
 * const sockets = attachEventSockets(server, { platform });
 * server.listen(3000);
 * ```
 */
export function createNodeHandler(options: NodeHandlerOptions): NodeHandler {
  const { platform, ...handlerOptions } = options;
  const handler = createHttpHandler(platform, handlerOptions);
  const bodyTimeoutMs = handlerOptions.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const { logger } = handlerOptions;

  const serve = async (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void): Promise<void> => {
    const method = request.method ?? 'GET';
    try {
      const body = method === 'GET' || method === 'HEAD' ? null : await readNodeBody(request, handler.maxRequestBytes, { timeoutMs: bodyTimeoutMs });
      const result = await handler.handle({ method, url: request.url ?? '/', headers: nodeRequestHeaders(request), body });
      if (!result && next) return next();
      await sendNodeResponse(response, result ?? jsonResponse(404, { detail: 'Not Found' }), logger);
    } catch (error) {
      await sendNodeResponse(response, errorResponse(error, logger));
    }
  };
  return Object.assign(serve, { closeStreams: () => handler.closeStreams(), handler });
}
