import type { Readable } from 'node:stream';
import { tooLarge } from '../exchange/body.js';
import { HttpError, requestTimeout } from '../exchange/error-response.js';

export interface ReadNodeBodyOptions {
  /**
   * How long the whole body may take to arrive, in milliseconds, counted from the call; past it
   * the read fails with a 408 `HttpError` (with `Connection: close`). `0` or absent: no deadline.
   */
  timeoutMs?: number;
}

/** The client went away before the end of its body: nobody is left to read the answer. */
const incomplete = () => new HttpError(400, 'Request body was not completed: the connection closed', { connection: 'close' });

const ignore = () => {};

/** The declared `Content-Length`, when the stream is a Node request that has one. */
function declaredLength(stream: Readable): number {
  const headers = (stream as { headers?: Record<string, unknown> }).headers;
  const value = headers?.['content-length'];
  return typeof value === 'string' ? Number(value) : Number.NaN;
}

/**
 * Reads a Node request's raw body, refusing (413) as soon as it passes `limit`, so an oversized
 * upload is never buffered whole. A declared `Content-Length` over the limit is refused before
 * reading anything. With `timeoutMs`, a body that does not finish in time (a chunked upload that
 * never ends) is refused with 408 instead of holding the request open.
 */
export function readNodeBody(request: Readable, limit: number, options: ReadNodeBodyOptions = {}): Promise<Uint8Array> {
  const declared = declaredLength(request);
  if (Number.isFinite(declared) && declared > limit) {
    request.resume();
    return Promise.reject(tooLarge(limit));
  }
  // Already read by someone else (nothing left to wait for), or already gone.
  if (request.readableEnded) return Promise.resolve(new Uint8Array());
  if (request.destroyed) return Promise.reject(incomplete());
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const timeoutMs = options.timeoutMs ?? 0;
    const timer = timeoutMs > 0 ? setTimeout(() => fail(requestTimeout()), timeoutMs) : undefined;

    const cleanup = () => {
      settled = true;
      if (timer) clearTimeout(timer);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      cleanup();
      // Keep the stream flowing with nobody listening: whatever still arrives is dropped, and a
      // later error of the stream has a listener (an unheard one would crash the process).
      request.on('error', ignore);
      request.resume();
      reject(error);
    };
    function onData(chunk: Buffer | string) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buffer.byteLength;
      if (size > limit) return fail(tooLarge(limit));
      chunks.push(buffer);
    }
    function onEnd() {
      if (settled) return;
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    }
    function onError(error: unknown) {
      // A stream that states its own 4xx (a decompressing pre-parser, ...) keeps it; otherwise
      // the connection broke mid-body.
      const status = (error as { statusCode?: unknown }).statusCode;
      fail(typeof status === 'number' && status >= 400 && status < 500 ? error : incomplete());
    }
    function onClose() {
      // Closed before the end: the client went away mid-body.
      fail(incomplete());
    }
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}
