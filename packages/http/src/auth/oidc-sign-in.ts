/**
 * Console sign-in with OpenID Connect, served by the shared handler before its route table (like
 * the console: browser redirects, not API, so outside the OpenAPI document):
 *
 * - `GET /auth/oidc/login` — a new login: state, nonce and PKCE verifier into the cookie, the
 *   browser to the provider.
 * - `GET /auth/oidc/callback` — the provider sends the browser back: the state checked against
 *   the cookie's, the code exchanged and the ID token checked (openid-client), the user placed by
 *   the mapping (403 page when it places them nowhere), a session opened, the cookie now its id,
 *   the browser to the console. A forged or stale callback is a 400 page saying why.
 * - `POST /auth/signout` — CSRF-checked; the session deleted and the cookie cleared.
 * - `GET /auth/session` — who the cookie signs in and their CSRF token (for the console).
 *
 * And {@link OidcSignIn.authenticate}, which the handler asks when a request has no API key.
 * @module
 */
import {
  ConsoleSessions,
  PlatformError,
  csrfTokenFor,
  csrfTokenMatches,
  systemClock,
  type AuthSessionResponse,
  type Clock,
  type Principal,
  type StorageAdapter,
} from '@agent-platform/core';
import { jsonResponse, type HandlerLogger } from '../exchange/error-response.js';
import type { HttpRequest, HttpResponse } from '../exchange/types.js';
import { clearedCookie, loginCookie, readSignInCookie, sessionCookie, signInCookie } from './cookies.js';
import { createOidcClient, type LoginChecks } from './oidc-client.js';
import { oidcSignInOptionsSchema, type OidcSignInOptions } from './oidc-options.js';
import { placeUser } from './role-mapping.js';
import { redirect, signInPage } from './sign-in-pages.js';

/** The paths served, in Fastify's syntax, for bindings that register paths one by one. */
export const SIGN_IN_PATHS: readonly string[] = ['/auth/oidc/login', '/auth/oidc/callback', '/auth/signout', '/auth/session'];

/** How long a login may take at the provider before its callback is refused. */
const LOGIN_TTL_SECONDS = 600;

/** Methods that change something: a cookie-authenticated one must carry the CSRF token. */
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const CSRF_HEADER = 'x-csrf-token';

export interface OidcSignIn {
  serves(path: string): boolean;
  serve(request: HttpRequest, path: string, query: URLSearchParams): Promise<HttpResponse>;
  /**
   * The principal the request's session cookie stands for, `null` when it has none (or one no
   * longer valid). A 403 `PlatformError` for an unsafe method without the session's CSRF token.
   */
  authenticate(request: HttpRequest): Promise<Principal | null>;
}

export interface OidcSignInDeps {
  storage: StorageAdapter;
  logger?: HandlerLogger | undefined;
  clock?: Clock | undefined;
}

/** Throws a zod error naming the bad option when `options` is not a valid configuration. */
export function createOidcSignIn(options: OidcSignInOptions, deps: OidcSignInDeps): OidcSignIn {
  const config = oidcSignInOptionsSchema.parse(options);
  const publicUrl = config.publicUrl.replace(/\/+$/, '');
  const consoleUrl = `${publicUrl}/console/`;
  const cookie = signInCookie(publicUrl);
  const provider = createOidcClient(config);
  const clock = deps.clock ?? systemClock;
  const sessions = new ConsoleSessions({ storage: deps.storage, clock, ...(config.sessionTtlMs ? { ttlMs: config.sessionTtlMs } : {}) });
  const ttlSeconds = Math.floor((config.sessionTtlMs ?? 12 * 3600 * 1000) / 1000);
  const page = (status: number, title: string, message: string, headers?: Record<string, string>) => signInPage(status, title, message, consoleUrl, headers);

  async function login(request: HttpRequest): Promise<HttpResponse> {
    // A new login replaces the cookie: the session it held, if any, ends here rather than linger.
    const held = readSignInCookie(cookie, request.headers.cookie);
    if (held.kind === 'session') await sessions.signOut(held.sessionId);
    let started: Awaited<ReturnType<typeof provider.startLogin>>;
    try {
      started = await provider.startLogin();
    } catch (error) {
      deps.logger?.warn({ err: describe(error) }, 'OpenID provider discovery failed');
      return page(502, 'Sign-in is unavailable', `The sign-in provider (${config.providerName}) could not be reached. Try again shortly.`);
    }
    const payload = Buffer.from(JSON.stringify({ ...started.checks, exp: clock.now().getTime() + LOGIN_TTL_SECONDS * 1000 })).toString('base64url');
    return redirect(started.url.href, loginCookie(cookie, payload, LOGIN_TTL_SECONDS));
  }

  async function callback(request: HttpRequest, query: URLSearchParams): Promise<HttpResponse> {
    const refused = (reason: string) => {
      deps.logger?.warn({ reason }, 'OpenID sign-in callback refused');
      return page(400, 'Sign-in failed', reason, { 'set-cookie': clearedCookie(cookie) });
    };
    const providerError = query.get('error');
    // The provider's own code only (`access_denied`, ...): its description is not ours to echo.
    if (providerError) return refused(`The sign-in provider refused the sign-in (${providerError.slice(0, 64).replace(/[^\w.-]/g, '?')}).`);
    const held = readSignInCookie(cookie, request.headers.cookie);
    const checks = held.kind === 'login' ? parseLogin(held.payload) : null;
    if (!checks) return refused('No sign-in was started in this browser, or it expired. Start again from the console.');
    if (checks.exp <= clock.now().getTime()) return refused('The sign-in took too long and expired. Start again from the console.');
    const state = query.get('state');
    if (!state || !csrfSafeEqual(state, checks.state))
      return refused('The answer from the sign-in provider does not belong to the sign-in started in this browser (state mismatch).');
    if (!query.get('code')) return refused('The answer from the sign-in provider has no authorization code.');
    let claims: Record<string, unknown>;
    try {
      const callbackUrl = new URL(provider.redirectUri);
      callbackUrl.search = query.toString();
      claims = await provider.finishLogin(callbackUrl, checks);
    } catch (error) {
      // A provider out of reach is not the browser's fault; anything else the exchange or the
      // token's checks refused is (a replayed or forged code, a wrong nonce): a 400 saying so.
      if (error instanceof TypeError) {
        deps.logger?.warn({ err: describe(error) }, 'OpenID token exchange could not reach the provider');
        return page(502, 'Sign-in is unavailable', `The sign-in provider (${config.providerName}) could not be reached. Try again shortly.`);
      }
      return refused(`The sign-in provider's answer could not be verified: ${describe(error)}.`);
    }
    const placement = placeUser(config.mapping, claims);
    if (!placement.ok) {
      deps.logger?.warn({ reason: placement.reason }, 'OpenID sign-in of an unmapped user');
      return page(403, 'No access', placement.reason, { 'set-cookie': clearedCookie(cookie) });
    }
    const opened = await sessions.signIn({
      userId: `oidc:${String(claims.sub)}`,
      orgId: placement.orgId,
      role: placement.role,
      email: typeof claims.email === 'string' ? claims.email : null,
      name: typeof claims.name === 'string' ? claims.name : null,
    });
    return redirect(consoleUrl, sessionCookie(cookie, opened.sessionId, ttlSeconds));
  }

  async function session(request: HttpRequest): Promise<HttpResponse> {
    const held = readSignInCookie(cookie, request.headers.cookie);
    const found = held.kind === 'session' ? await sessions.authenticate(held.sessionId) : null;
    const body: AuthSessionResponse = {
      sign_in: { provider: config.providerName },
      session:
        found && held.kind === 'session'
          ? {
              user_id: found.session.user_id,
              org_id: found.session.org_id,
              role: found.session.role,
              email: found.session.email,
              name: found.session.name,
              expires_at: found.session.expires_at,
              csrf_token: csrfTokenFor(held.sessionId),
            }
          : null,
    };
    return jsonResponse(200, body);
  }

  async function signOut(request: HttpRequest): Promise<HttpResponse> {
    const held = readSignInCookie(cookie, request.headers.cookie);
    if (held.kind === 'session') {
      if (!csrfTokenMatches(held.sessionId, headerOf(request, CSRF_HEADER))) return csrfRefusal();
      await sessions.signOut(held.sessionId);
    }
    return jsonResponse(204, undefined, { 'set-cookie': clearedCookie(cookie) });
  }

  const handlers: Record<string, { method: 'GET' | 'POST'; run: (request: HttpRequest, query: URLSearchParams) => Promise<HttpResponse> }> = {
    '/auth/oidc/login': { method: 'GET', run: login },
    '/auth/oidc/callback': { method: 'GET', run: callback },
    '/auth/session': { method: 'GET', run: session },
    '/auth/signout': { method: 'POST', run: signOut },
  };

  return {
    serves: (path) => Object.hasOwn(handlers, path),
    async serve(request, path, query) {
      const route = handlers[path];
      if (!route) return jsonResponse(404, { detail: 'Not Found' });
      const method = request.method.toUpperCase();
      const allowed = route.method === 'GET' ? ['GET', 'HEAD'] : ['POST'];
      if (!allowed.includes(method)) return jsonResponse(405, { detail: 'Method not allowed' }, { allow: allowed.join(', ') });
      return route.run(request, query);
    },
    async authenticate(request) {
      const held = readSignInCookie(cookie, request.headers.cookie);
      if (held.kind !== 'session') return null;
      const found = await sessions.authenticate(held.sessionId);
      if (!found) return null;
      if (UNSAFE.has(request.method.toUpperCase()) && !csrfTokenMatches(held.sessionId, headerOf(request, CSRF_HEADER))) {
        throw new PlatformError(
          'FORBIDDEN',
          'Missing or wrong X-CSRF-Token: a request signed in with the console session cookie must send the token GET /auth/session gives',
        );
      }
      return found.principal;
    },
  };
}

function csrfRefusal(): HttpResponse {
  return jsonResponse(403, { detail: 'Missing or wrong X-CSRF-Token: sign-out must send the token GET /auth/session gives' });
}

function headerOf(request: HttpRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Length-independent comparison of two short random strings (state values). */
function csrfSafeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  let diff = left.length ^ right.length;
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}

/** The login the cookie holds, or `null` for anything that is not one (a tampered cookie). */
function parseLogin(payload: string): (LoginChecks & { exp: number }) | null {
  try {
    const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const { state, nonce, verifier, exp } = value;
    if (typeof state !== 'string' || typeof nonce !== 'string' || typeof verifier !== 'string' || typeof exp !== 'number') return null;
    return { state, nonce, verifier, exp };
  } catch {
    return null;
  }
}

/** An error's class and message for a log line or a page: openid-client's say what failed, never a token or secret. */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}`.slice(0, 300);
  }
  return 'unknown error';
}
