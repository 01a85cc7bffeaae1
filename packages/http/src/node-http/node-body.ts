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
 * How much of an oversized body is read (and dropped) before the 413 is sent: a client that is
 * still sending when the answer comes and the connection closes sees a broken pipe (EPIPE) rather
 * than the 413, so a body up to four times the limit (at least 16 MiB) is let finish first, as
 * Express's final handler does. Past that, the 413 goes at once and the connection closes.
 */
const drainLimit = (limit: number): number => Math.max(4 * limit, 16 * 1024 * 1024);

/** Resolves when the stream has ended, its data dropped; rejects with 408 past `timeoutMs`, or 400 when it breaks. */
function drained(request: Readable, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = timeoutMs > 0 ? setTimeout(() => finish(requestTimeout()), timeoutMs) : undefined;
    const finish = (error?: unknown) => {
      if (timer) clearTimeout(timer);
      request.off('end', onEnd);
      request.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onEnd = () => finish();
    const onClose = () => finish(request.readableEnded ? undefined : incomplete());
    request.on('error', ignore);
    request.on('end', onEnd);
    request.on('close', onClose);
    request.resume();
  });
}

/**
 * Reads a Node request's raw body, refusing (413) once it passes `limit`, so an oversized
 * upload is never buffered whole: what arrives past the limit is dropped, and the 413 is answered
 * when the body has ended (a body over four times the limit, at once). A declared
 * `Content-Length` over the limit is refused without buffering anything. With `timeoutMs`, a body
 * that does not finish in time (a chunked upload that never ends) is refused with 408 instead of
 * holding the request open.
 */
export function readNodeBody(request: Readable, limit: number, options: ReadNodeBodyOptions = {}): Promise<Uint8Array> {
  const declared = declaredLength(request);
  const drainMax = drainLimit(limit);
  if (Number.isFinite(declared) && declared > limit) {
    if (declared > drainMax || request.readableEnded || request.destroyed) {
      request.on('error', ignore);
      request.resume();
      return Promise.reject(tooLarge(limit));
    }
    return drained(request, options.timeoutMs ?? 0).then(() => Promise.reject(tooLarge(limit)));
  }
  // Already read by someone else (nothing left to wait for), or already gone.
  if (request.readableEnded) return Promise.resolve(new Uint8Array());
  if (request.destroyed) return Promise.reject(incomplete());
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    /** Past the limit: the rest is read and dropped, and the end is answered with 413. */
    let overLimit = false;
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
      if (size > limit) {
        // Answered once the rest has arrived (see drained), unless there is too much of it.
        if (size > drainMax) return fail(tooLarge(limit));
        chunks.length = 0;
        overLimit = true;
        return;
      }
      if (!overLimit) chunks.push(buffer);
    }
    function onEnd() {
      if (settled) return;
      cleanup();
      if (overLimit) reject(tooLarge(limit));
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
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
