import type { AgentPlatform } from '@agent-platform/core';
import { tooLarge } from './exchange/body.js';
import { errorResponse, jsonResponse } from './exchange/error-response.js';
import type { HttpResponse } from './exchange/types.js';
import { createHttpHandler, type HttpHandlerOptions } from './handler.js';

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The API as a web-standard `fetch` handler: for runtimes that speak Request/Response, and for
 * tests that drive the real handler with no socket (pass it to the client SDK as `fetch`).
 */
export function createFetchHandler(platform: AgentPlatform, options: HttpHandlerOptions = {}): FetchHandler {
  const handler = createHttpHandler(platform, options);
  return async (request) => {
    let result: HttpResponse;
    try {
      const body = request.body ? new Uint8Array(await request.arrayBuffer()) : null;
      if (body && body.byteLength > handler.maxRequestBytes) throw tooLarge(handler.maxRequestBytes);
      const url = new URL(request.url);
      result =
        (await handler.handle({ method: request.method, url: url.pathname + url.search, headers: Object.fromEntries(request.headers), body })) ??
        jsonResponse(404, { detail: 'Not Found' });
    } catch (error) {
      result = errorResponse(error, options.logger);
    }
    const body = result.stream ? readableStream(result.stream) : result.body;
    return new Response(body, { status: result.status, headers: result.headers });
  };
}

/**
 * A streamed answer as a web `ReadableStream`: pulled as the client reads, and the iterator
 * returned when the client cancels it (a fetch aborted, a reader cancelled).
 */
function readableStream(stream: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const iterator = stream[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: IteratorResult<string>;
      try {
        next = await iterator.next();
      } catch (error) {
        controller.error(error);
        return;
      }
      try {
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch {
        // Cancelled while the chunk was awaited: nobody reads any more.
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
