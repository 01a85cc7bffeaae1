/**
 * Console sign-in's cookie, read and written in one place. One cookie, not two: it holds the
 * login in progress (state, nonce and PKCE verifier, for ten minutes) until the provider sends
 * the browser back, and then the session id in its place — so each answer sets exactly one
 * cookie, which every binding's plain header map can carry.
 *
 * It is HttpOnly (no script reads it) and SameSite=Lax (sent on the provider's redirect back, a
 * top-level GET, but not on other sites' POSTs). Over https it is `Secure` and named with the
 * `__Host-` prefix, which a browser accepts only from this exact origin with `Path=/` — so a
 * sibling subdomain can neither plant a login of its own (login CSRF) nor shadow the session.
 * @module
 */
import type { HeaderValue } from '../exchange/types.js';

/** How a login in progress is told from a session id in the cookie's value. */
const LOGIN_PREFIX = 'login~';

export interface SignInCookie {
  name: string;
  secure: boolean;
}

export function signInCookie(publicUrl: string): SignInCookie {
  const secure = new URL(publicUrl).protocol === 'https:';
  return { name: `${secure ? '__Host-' : ''}agent_platform_session`, secure };
}

/** The cookie's value in the request's `Cookie` header(s); `undefined` when absent. */
function readCookie(header: HeaderValue, name: string): string | undefined {
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  for (const line of lines) {
    for (const part of line.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
    }
  }
  return undefined;
}

/** What the cookie holds: a session id, a login in progress (its encoded payload), or nothing. */
export type CookieContent = { kind: 'session'; sessionId: string } | { kind: 'login'; payload: string } | { kind: 'none' };

export function readSignInCookie(cookie: SignInCookie, header: HeaderValue): CookieContent {
  const value = readCookie(header, cookie.name);
  if (!value) return { kind: 'none' };
  if (value.startsWith(LOGIN_PREFIX)) return { kind: 'login', payload: value.slice(LOGIN_PREFIX.length) };
  return { kind: 'session', sessionId: value };
}

/** A `Set-Cookie` value. Values are base64url (and `~`), so never quoted or escaped. */
function serialize(cookie: SignInCookie, value: string, maxAgeSeconds: number): string {
  return [`${cookie.name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`, ...(cookie.secure ? ['Secure'] : [])].join('; ');
}

export const loginCookie = (cookie: SignInCookie, payload: string, maxAgeSeconds: number): string => serialize(cookie, LOGIN_PREFIX + payload, maxAgeSeconds);
export const sessionCookie = (cookie: SignInCookie, sessionId: string, maxAgeSeconds: number): string => serialize(cookie, sessionId, maxAgeSeconds);
export const clearedCookie = (cookie: SignInCookie): string => serialize(cookie, '', 0);
