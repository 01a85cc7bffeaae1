/**
 * `@agent-platform/http/express`: the API as an Express router.
 * @module
 */
import type { AgentPlatform } from '@agent-platform/core';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { errorResponse } from './error-response.js';
import { createHttpHandler, type HttpHandlerOptions } from './handler.js';
import { readNodeBody } from './node-body.js';

export interface ExpressRouterOptions extends HttpHandlerOptions {
  platform: AgentPlatform;
}

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
 * Mount it before any body parser, so it reads the raw body itself:
 * @example
 * ```ts
 * const app = express();
 * app.use(createExpressRouter({ platform }));
 * app.listen(3000);
 * ```
 */
export function createExpressRouter(options: ExpressRouterOptions): Router {
  const { platform, ...handlerOptions } = options;
  const handler = createHttpHandler(platform, handlerOptions);
  const router = Router();

  router.use(async (request: Request, response: Response, next: NextFunction) => {
    try {
      const body = alreadyParsedBody(request) ?? (request.method === 'GET' || request.method === 'HEAD' ? null : await readNodeBody(request, handler.maxRequestBytes));
      const result = await handler.handle({ method: request.method, url: request.originalUrl.slice(request.baseUrl.length) || '/', headers: request.headers, body });
      if (!result) return next();
      send(response, result);
    } catch (error) {
      send(response, errorResponse(error, handlerOptions.logger));
    }
  });
  return router;
}

function send(response: Response, result: { status: number; headers: Record<string, string>; body: string | null }): void {
  response.status(result.status);
  for (const [name, value] of Object.entries(result.headers)) response.setHeader(name, value);
  if (result.body === null) response.end();
  else response.end(result.body);
}
