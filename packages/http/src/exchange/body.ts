/**
 * Reading a JSON request body: content type, size, UTF-8 and syntax, each refused with a
 * clear 4xx. The raw bytes stay available to the route (signature verification needs them).
 * @module
 */
import { PlatformError, decodeUtf8, parseJsonText, payloadTooLarge } from '@agent-platform/core';
import type { HeaderValue } from './types.js';

export const headerValue = (value: HeaderValue): string | undefined => (Array.isArray(value) ? value[0] : value);

/** `application/json`, or any `+json` type (`application/merge-patch+json`, ...). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || (mediaType.startsWith('application/') && mediaType.endsWith('+json'));
}

export const tooLarge = payloadTooLarge;

/**
 * The parsed body, or `undefined` when the request has none. A body must be sent as JSON; an
 * empty body (with or without `Content-Type: application/json`) counts as none. JSON nested
 * deeper than `maxDepth` is a 400, refused before parsing.
 */
export function readJsonBody(raw: Uint8Array, contentType: HeaderValue, limit: number, maxDepth?: number): unknown {
  if (raw.byteLength > limit) throw tooLarge(limit);
  if (raw.byteLength === 0) return undefined;
  if (!isJsonContentType(headerValue(contentType))) {
    throw new PlatformError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be JSON (Content-Type: application/json)');
  }
  const text = decodeUtf8(raw);
  if (text.trim() === '') return undefined;
  return parseJsonText(text, maxDepth);
}
