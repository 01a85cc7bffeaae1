import type { AgentPlatform } from '@agent-platform/core';
import { tooLarge } from './body.js';
import { errorResponse, jsonResponse } from './error-response.js';
import { createHttpHandler, type HttpHandlerOptions } from './handler.js';

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The API as a web-standard `fetch` handler: for runtimes that speak Request/Response, and for
 * tests that drive the real handler with no socket (pass it to the client SDK as `fetch`).
 */
export function createFetchHandler(platform: AgentPlatform, options: HttpHandlerOptions = {}): FetchHandler {
  const handler = createHttpHandler(platform, options);
  return async (request) => {
    let result;
    try {
      const body = request.body ? new Uint8Array(await request.arrayBuffer()) : null;
      if (body && body.byteLength > handler.maxRequestBytes) throw tooLarge(handler.maxRequestBytes);
      const url = new URL(request.url);
      result = (await handler.handle({ method: request.method, url: url.pathname + url.search, headers: Object.fromEntries(request.headers), body })) ?? jsonResponse(404, { detail: 'Not Found' });
    } catch (error) {
      result = errorResponse(error, options.logger);
    }
    return new Response(result.body, { status: result.status, headers: result.headers });
  };
}
