/**
 * Writing the handler's answer to a Node `ServerResponse`, streamed ones included: the
 * Express binding, the Node listener and the Fastify plugin (for streams) all write here.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { HandlerLogger } from '../exchange/error-response.js';
import type { HttpResponse } from '../exchange/types.js';

/**
 * Writes `result`. A streamed answer is written chunk by chunk, each flushed at once, waiting
 * for the socket to drain when it is full; when the client goes away (the response closes) the
 * stream's iterator is returned, which stops its source. Resolves when the answer is complete
 * or abandoned; never rejects.
 */
export async function sendNodeResponse(response: ServerResponse, result: HttpResponse, logger?: HandlerLogger): Promise<void> {
  const stream = result.stream?.[Symbol.asyncIterator]();
  if (response.headersSent || response.destroyed || response.writableEnded) {
    await stream?.return?.();
    return;
  }
  response.statusCode = result.status;
  for (const [name, value] of Object.entries(result.headers)) response.setHeader(name, value);
  if (!stream) {
    if (result.body === null) response.end();
    else response.end(wireBody(result.body));
    return;
  }
  await pipeToResponse(response, stream, logger);
}

/**
 * A body as Node writers take it: text as is, bytes as a `Buffer` over the same memory (no copy).
 * Node's own `end` takes any `Uint8Array`, but middleware that wraps it (`compression`) and
 * Fastify's `send` expect a `Buffer`.
 */
export function wireBody(body: string | Uint8Array): string | Buffer {
  return typeof body === 'string' || Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

async function pipeToResponse(response: ServerResponse, stream: AsyncIterator<string>, logger?: HandlerLogger): Promise<void> {
  let gone = false;
  let wake: (() => void) | null = null;
  const onClose = () => {
    gone = true;
    wake?.();
    void stream.return?.();
  };
  const ignore = () => {};
  response.once('close', onClose);
  // A write to a connection that broke: 'close' follows and ends the stream.
  response.on('error', ignore);
  // A stream ends only when the client leaves, or the server ends it (shutting down, a client
  // too far behind): its connection is not worth keeping, and closing it lets `server.close()`
  // finish at once.
  response.setHeader('connection', 'close');
  // The headers go out now: a client waits for them before it reads any event.
  response.flushHeaders();
  try {
    for (;;) {
      const next = await stream.next();
      if (next.done || gone) break;
      const flushed = response.write(next.value);
      // Compression middleware (`compression`) holds output until asked to flush.
      (response as ServerResponse & { flush?: () => void }).flush?.();
      if (!flushed && !gone) {
        await new Promise<void>((resolve) => {
          const resume = () => {
            response.off('drain', resume);
            wake = null;
            resolve();
          };
          wake = resume;
          response.on('drain', resume);
        });
      }
    }
    if (!gone) response.end();
  } catch (error) {
    // The source failed mid-stream: no status can be sent any more. The connection is cut, so
    // the client sees the stream break (not end) and reconnects.
    logger?.error({ err: error }, 'stream failed while being written');
    response.destroy();
  } finally {
    response.off('close', onClose);
    await stream.return?.();
  }
}
