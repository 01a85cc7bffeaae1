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

/**
 * Why a request that presents no API key has none, for its 401: an `Authorization` header
 * without the `Bearer ` scheme (a bare key, or another scheme) is named as such, so the caller
 * sees what to change rather than "missing". The header's value is never repeated.
 */
export function missingKeyMessage(headers: HttpRequest['headers'], ways: string): string {
  const authorization = asList(headers.authorization)
    .map((value) => value.trim())
    .find(Boolean);
  if (authorization === undefined) return `Missing API key: send ${ways}`;
  const scheme = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+\S/.exec(authorization)?.[1];
  if (scheme === undefined) return 'The Authorization header holds no scheme: send "Authorization: Bearer <API key>", with "Bearer " before the key';
  return `The Authorization header uses the ${JSON.stringify(scheme.slice(0, 20))} scheme: send "Authorization: Bearer <API key>"`;
}
