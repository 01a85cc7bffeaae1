/**
 * The API key a request presents, read once here for the handler, the event sockets and the
 * routes that need to know which key was used (`GET /api/keys/current`).
 * @module
 */
import { PlatformError } from '@agent-platform/core';
import type { HeaderValue, HttpRequest } from './types.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
/** Where Node and fetch `Headers` joined repeated `Authorization` headers: a comma before another `scheme credentials`. */
const JOINED_AUTHORIZATION = /\s*,\s*(?=[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*\s+\S)/;

const asList = (value: HeaderValue): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/**
 * The API key from `X-Session-API-Key` or `Authorization: Bearer`; both work everywhere, and
 * both may name the same key. Two different keys (two `Authorization` headers, or the two
 * headers naming different keys) are a 400: the request is refused, never served with one of
 * them picked. Repeated headers arrive as arrays, or joined with commas (Node, fetch `Headers`).
 */
export function readApiKey(headers: HttpRequest['headers']): string | undefined {
  const authorization = asList(headers.authorization)
    .flatMap((value) => value.split(JOINED_AUTHORIZATION))
    .map((value) => value.trim())
    .filter(Boolean);
  if (new Set(authorization).size > 1) throw new PlatformError('BAD_REQUEST', 'Send one Authorization header, not several');
  const keys = new Set<string>();
  for (const value of asList(headers['x-session-api-key'])) {
    // API keys never hold commas: a comma is where repeated headers were joined.
    for (const key of value.split(',')) if (key.trim()) keys.add(key.trim());
  }
  const bearer = authorization[0] === undefined ? undefined : BEARER.exec(authorization[0])?.[1];
  if (bearer) keys.add(bearer);
  if (keys.size > 1)
    throw new PlatformError('BAD_REQUEST', 'The request names more than one API key: send one key, in X-Session-API-Key or Authorization: Bearer');
  return keys.values().next().value;
}
