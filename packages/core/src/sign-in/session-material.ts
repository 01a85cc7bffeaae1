/**
 * Console session material: the id a browser holds in its cookie (32 random bytes), the hash it
 * is stored under, and the CSRF token derived from it.
 *
 * The CSRF token is an HMAC of a fixed label keyed with the session id: only someone who holds
 * the id (the server, reading the HttpOnly cookie) can compute it, knowing the token reveals
 * nothing of the id, and nothing more needs storing or rotating. A page on another origin can
 * make the browser send the cookie but can read neither the cookie nor `GET /auth/session`'s
 * answer, so it cannot learn the token.
 * @module
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const CSRF_LABEL = 'agent-platform console csrf v1';

export const generateSessionId = (): string => randomBytes(32).toString('base64url');

/** Hex SHA-256 of a session id: 256 random bits need no salt or slow hash. */
export const hashSessionId = (sessionId: string): string => createHash('sha256').update(sessionId, 'utf8').digest('hex');

export const csrfTokenFor = (sessionId: string): string => createHmac('sha256', sessionId).update(CSRF_LABEL).digest('base64url');

/** Whether `presented` is the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(sessionId: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfTokenFor(sessionId));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
