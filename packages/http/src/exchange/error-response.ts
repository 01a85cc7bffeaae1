import { PlatformError, StorageUnavailableError } from '@agent-platform/core';
import type { HttpResponse } from './types.js';

/** Where the handler reports failures it did not expect; pino's logger fits. */
export interface HandlerLogger {
  error(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
}

/**
 * A failure of the HTTP exchange itself rather than of the platform (a body that never finished
 * arriving, ...): answered with its status and `{"detail": message}`, plus `headers`.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * 408 for a request whose body did not arrive in time; the connection is closed after the
 * answer. The same text as the server's own request timeout: either may fire first.
 */
export const requestTimeout = (): HttpError => new HttpError(408, statusDetail(408), { connection: 'close' });

/**
 * The `detail` for a status when the one who refused the request (Node's parser, the framework's
 * router) gave no message fit to show: fixed texts, never an echo of the request.
 */
export function statusDetail(status: number): string {
  switch (status) {
    case 400:
      return 'Bad request: it could not be read';
    case 404:
      return 'Not Found';
    case 408:
      return 'Request not received in time';
    case 413:
      return 'Request body is larger than the limit';
    case 414:
      return 'Request URL is too long';
    case 431:
      return 'Request header fields are too large';
    case 503:
      return 'Service temporarily unavailable; retry later';
    case 500:
      return 'Internal server error';
    default:
      return status >= 500 ? 'Server error' : 'Request refused';
  }
}

/**
 * A JSON answer: `body` serialized (`null` for none, or a 204). A text or binary answer is
 * `contentResponse`'s (`response-kind.ts`).
 */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  if (body === undefined || status === 204) return { status, headers: { 'cache-control': 'no-store', ...headers }, body: null };
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

/**
 * Maps any error to the wire: `{"detail": "..."}`, or the list of issues for a 422. Unexpected
 * errors become a 500 whose body says nothing about the cause; the cause goes to the log.
 */
export function errorResponse(error: unknown, logger?: HandlerLogger): HttpResponse {
  if (error instanceof PlatformError) {
    const detail = error.code === 'VALIDATION_FAILED' && error.issues ? error.issues : error.message;
    const retryAfter: Record<string, string> =
      error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(Math.max(1, Math.ceil(error.retryAfterSeconds))) };
    return jsonResponse(error.status, { detail }, retryAfter);
  }
  if (error instanceof HttpError) return jsonResponse(error.status, { detail: error.message }, error.headers);
  if (error instanceof StorageUnavailableError) {
    logger?.warn({ err: error }, 'storage unavailable');
    return jsonResponse(503, { detail: 'Service temporarily unavailable; retry later' }, { 'retry-after': '5' });
  }
  logger?.error({ err: error }, 'unhandled error in request handler');
  return jsonResponse(500, { detail: 'Internal server error' });
}
