import { PlatformError, StorageUnavailableError } from '@agent-platform/core';
import type { HttpResponse } from './types.js';

/** Where the handler reports failures it did not expect; pino's logger fits. */
export interface HandlerLogger {
  error(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
}

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
    return jsonResponse(error.status, { detail });
  }
  if (error instanceof StorageUnavailableError) {
    logger?.warn({ err: error }, 'storage unavailable');
    return jsonResponse(503, { detail: 'Service temporarily unavailable; retry later' }, { 'retry-after': '5' });
  }
  logger?.error({ err: error }, 'unhandled error in request handler');
  return jsonResponse(500, { detail: 'Internal server error' });
}
