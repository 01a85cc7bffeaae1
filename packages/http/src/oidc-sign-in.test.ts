/**
 * Console sign-in with OpenID Connect against a real provider (`oidc-provider` on loopback, no
 * mock): the handler sends the browser there with PKCE, state and nonce; the provider's login
 * and consent pages are filled in over HTTP; the callback places the user by the mapping, sets
 * the session cookie, and the cookie then authenticates the API — unsafe methods only with the
 * CSRF token. Forged, stale and unmapped callbacks are refused with a page that says why, and
 * API keys keep working beside it all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, hashSessionId, type AgentPlatform } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createHttpHandler, type HttpHandler } from './handler.js';
import type { HandlerLogger } from './exchange/error-response.js';
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '../test-support/oidc-provider.js';

const PUBLIC_URL = 'http://platform.test';
const API_KEY = 'owner-key-0123456789abcdef';

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: any;
}

describe('console sign-in with OpenID Connect', () => {
  let idp: TestOidcProvider;
  let platform: AgentPlatform;
  let handler: HttpHandler;
  const logs: string[] = [];

  beforeAll(async () => {
    idp = await startOidcProvider({
      redirectUris: [`${PUBLIC_URL}/auth/oidc/callback`],
      accounts: {
        vera: { email: 'vera@acme.test', email_verified: true, name: 'Vera Viewer' },
        ada: { email: 'ada@elsewhere.test', email_verified: true, name: 'Ada Admin', org: 'globex', role: ['member', 'admin'] },
        mo: { email: 'mo@unmapped.test', email_verified: true },
        eve: { email: 'eve@acme.test', email_verified: false },
      },
    });
    platform = createAgentPlatform({
      storage: createMemoryStorage(),
      secrets: createAesGcmSecretBox({ keys: { test: generateSecretKey() } }),
      publicUrl: PUBLIC_URL,
    });
    await platform.apiKeys.seed({ userId: 'owner', orgId: 'acme', key: API_KEY });
    const logger: HandlerLogger = {
      error: (object, message) => logs.push(JSON.stringify({ ...object, message })),
      warn: (object, message) => logs.push(JSON.stringify({ ...object, message })),
    };
    handler = createHttpHandler(platform, {
      logger,
      oidc: {
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        publicUrl: PUBLIC_URL,
        providerName: 'Test IdP',
        scopes: ['openid', 'email', 'profile', 'org'],
        mapping: { orgClaim: 'org', roleClaim: 'role', domains: { 'acme.test': { org: 'acme', role: 'viewer' } }, defaultRole: 'member' },
      },
    });
  });
  afterAll(async () => {
    await idp?.close();
    await platform?.stop();
  });

  async function call(method: string, url: string, headers: Record<string, string> = {}, json?: unknown): Promise<Answer> {
    const body = json === undefined ? null : new TextEncoder().encode(JSON.stringify(json));
    const response = await handler.handle({ method, url, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body });
    if (!response) throw new Error(`no route for ${method} ${url}`);
    const text = typeof response.body === 'string' ? response.body : response.body ? new TextDecoder().decode(response.body) : '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, json: parsed };
  }

  /** The `name=value` a `Set-Cookie` sets, for the next request's `Cookie`. */
  const cookieOf = (answer: Answer): string => (answer.headers['set-cookie'] ?? '').split(';')[0] ?? '';

  /** A whole sign-in: login, the provider's pages, the callback. Answers the callback's answer and the cookie it set. */
  async function signIn(login: string): Promise<{ callback: Answer; cookie: string }> {
    const started = await call('GET', '/auth/oidc/login');
    expect(started.status).toBe(302);
    const loginCookie = cookieOf(started);
    const back = await signInAtProvider(started.headers.location ?? '', login);
    expect(back.origin + back.pathname).toBe(`${PUBLIC_URL}/auth/oidc/callback`);
    const callback = await call('GET', back.pathname + back.search, { cookie: loginCookie });
    return { callback, cookie: cookieOf(callback) };
  }

  it('sends the browser to the provider with PKCE (S256), state and nonce, kept in an HttpOnly cookie', async () => {
    const started = await call('GET', '/auth/oidc/login');
    expect(started.status).toBe(302);
    const location = new URL(started.headers.location ?? '');
    expect(location.origin).toBe(idp.issuer);
    expect(location.searchParams.get('client_id')).toBe(idp.clientId);
    expect(location.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/auth/oidc/callback`);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(location.searchParams.get('state')).toBeTruthy();
    expect(location.searchParams.get('nonce')).toBeTruthy();
    expect(location.searchParams.get('scope')).toBe('openid email profile org');
    const setCookie = started.headers['set-cookie'] ?? '';
    expect(setCookie).toMatch(/^agent_platform_session=login~/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
    // Plain http here: no Secure, no __Host- prefix (see the https test below).
    expect(setCookie).not.toContain('Secure');
  });

  it('places a user by email domain on first sign-in, and the cookie then reads the API with their role', async () => {
    const { callback, cookie } = await signIn('vera');
    expect(callback.status).toBe(302);
    expect(callback.headers.location).toBe(`${PUBLIC_URL}/console/`);
    expect(callback.headers['set-cookie']).toMatch(/^agent_platform_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    const session = await call('GET', '/auth/session', { cookie });
    expect(session.status).toBe(200);
    expect(session.json).toMatchObject({
      sign_in: { provider: 'Test IdP' },
      session: { user_id: 'oidc:vera', org_id: 'acme', role: 'viewer', email: 'vera@acme.test', name: 'Vera Viewer' },
    });
    expect(session.json.session.csrf_token).toMatch(/^[\w-]{43}$/);
    // Only the hash of the session id is stored.
    const sessionId = cookie.split('=')[1] ?? '';
    expect(await platform.storage.consoleSessions.get(sessionId)).toBeNull();
    expect(await platform.storage.consoleSessions.get(hashSessionId(sessionId))).toMatchObject({ user_id: 'oidc:vera' });
    expect(await platform.storage.memberships.get('acme', 'oidc:vera')).toMatchObject({ role: 'viewer', email: 'vera@acme.test' });
    // A viewer reads, and is refused a write with the role named.
    expect((await call('GET', '/api/automation/v1', { cookie })).status).toBe(200);
    const write = await call('POST', '/api/automation/v1/validate', { cookie, 'x-csrf-token': session.json.session.csrf_token }, {});
    expect(write.status).toBe(403);
    expect(write.json.detail).toBe('This needs the member role; this key has viewer');
  });

  it('places a user by org and role claims (the highest role listed), and keeps the membership role on later sign-ins', async () => {
    const first = await signIn('ada');
    const session = await call('GET', '/auth/session', { cookie: first.cookie });
    expect(session.json.session).toMatchObject({ user_id: 'oidc:ada', org_id: 'globex', role: 'admin' });
    // An owner demotes Ada; the provider still says admin, but the membership's role stays.
    await platform.storage.memberships.setRole('globex', 'oidc:ada', 'member');
    // An open session follows the change at once...
    expect((await call('GET', '/auth/session', { cookie: first.cookie })).json.session.role).toBe('member');
    // ... and a later sign-in keeps it.
    const again = await signIn('ada');
    expect((await call('GET', '/auth/session', { cookie: again.cookie })).json.session.role).toBe('member');
  });

  it('answers an unmapped user (and an unverified email) with a 403 page that says why, and no session', async () => {
    for (const login of ['mo', 'eve']) {
      const { callback } = await signIn(login);
      expect(callback.status, login).toBe(403);
      expect(callback.headers['content-type']).toContain('text/html');
      expect(callback.text).toContain('not mapped to an org');
      expect(callback.headers['set-cookie']).toMatch(/Max-Age=0/);
    }
    expect(await platform.storage.memberships.get('acme', 'oidc:eve')).toBeNull();
  });

  it('refuses a forged or stale callback with a 400 page saying why, never a 5xx', async () => {
    const started = await call('GET', '/auth/oidc/login');
    const loginCookie = cookieOf(started);
    const back = await signInAtProvider(started.headers.location ?? '', 'vera');
    const forgedState = new URL(back);
    forgedState.searchParams.set('state', 'forged-state');
    let answer = await call('GET', forgedState.pathname + forgedState.search, { cookie: loginCookie });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('state mismatch');
    // No login cookie: a callback this browser never started.
    answer = await call('GET', back.pathname + back.search);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('No sign-in was started in this browser');
    // A tampered cookie.
    answer = await call('GET', back.pathname + back.search, { cookie: 'agent_platform_session=login~not-json' });
    expect(answer.status).toBe(400);
    // A forged code with the right state: the provider refuses the exchange.
    const forgedCode = new URL(back);
    forgedCode.searchParams.set('code', 'forged-code');
    answer = await call('GET', forgedCode.pathname + forgedCode.search, { cookie: loginCookie });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('could not be verified');
    // The provider's own refusal.
    answer = await call('GET', `/auth/oidc/callback?error=access_denied&error_description=%3Cscript%3E&state=x`, { cookie: loginCookie });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('access_denied');
    expect(answer.text).not.toContain('<script>');
    // The real code still works (every attempt above was refused before it was spent) — once.
    const good = await call('GET', back.pathname + back.search, { cookie: loginCookie });
    expect(good.status).toBe(302);
    const replayed = await call('GET', back.pathname + back.search, { cookie: loginCookie });
    expect(replayed.status).toBe(400);
  });

  it('asks for the CSRF token on unsafe methods with a cookie, and never with an API key', async () => {
    const { cookie } = await signIn('ada');
    const { csrf_token: token } = (await call('GET', '/auth/session', { cookie })).json.session;
    await platform.storage.memberships.setRole('globex', 'oidc:ada', 'admin');
    let answer = await call('POST', '/api/keys', { cookie }, { name: 'no token' });
    expect(answer.status).toBe(403);
    expect(answer.json.detail).toContain('X-CSRF-Token');
    answer = await call('POST', '/api/keys', { cookie, 'x-csrf-token': 'wrong' }, { name: 'wrong token' });
    expect(answer.status).toBe(403);
    answer = await call('POST', '/api/keys', { cookie, 'x-csrf-token': token }, { name: 'with token' });
    expect(answer.status).toBe(201);
    expect(answer.json).toMatchObject({ org_id: 'globex', role: 'admin' });
    // API keys: no cookie, no token, as before.
    answer = await call('POST', '/api/keys', { authorization: `Bearer ${API_KEY}` }, { name: 'by key' });
    expect(answer.status).toBe(201);
    expect(answer.json.org_id).toBe('acme');
    // A key wins over a cookie: the key's principal, no CSRF asked.
    answer = await call('GET', '/api/keys/current', { authorization: `Bearer ${API_KEY}`, cookie });
    expect(answer.json).toMatchObject({ user_id: 'owner', org_id: 'acme' });
  });

  it('signs out (CSRF-checked): the session is deleted and the cookie no longer works', async () => {
    const { cookie } = await signIn('vera');
    const { csrf_token: token } = (await call('GET', '/auth/session', { cookie })).json.session;
    expect((await call('POST', '/auth/signout', { cookie })).status).toBe(403);
    expect((await call('GET', '/api/automation/v1', { cookie })).status).toBe(200);
    const out = await call('POST', '/auth/signout', { cookie, 'x-csrf-token': token });
    expect(out.status).toBe(204);
    expect(out.headers['set-cookie']).toBe('agent_platform_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
    expect((await call('GET', '/api/automation/v1', { cookie })).status).toBe(401);
    expect((await call('GET', '/auth/session', { cookie })).json.session).toBeNull();
  });

  it('refuses an expired session and deletes it', async () => {
    const { cookie } = await signIn('vera');
    const sessionId = cookie.split('=')[1] ?? '';
    const stored = await platform.storage.consoleSessions.get(hashSessionId(sessionId));
    if (!stored) throw new Error('no session stored');
    await platform.storage.consoleSessions.delete(stored.id_hash);
    await platform.storage.consoleSessions.insert({ ...stored, expires_at: new Date(Date.now() - 1000).toISOString() });
    expect((await call('GET', '/api/automation/v1', { cookie })).status).toBe(401);
    expect(await platform.storage.consoleSessions.get(stored.id_hash)).toBeNull();
  });

  it('keeps the sign-in routes out of the route table and the OpenAPI document, and lists them for bindings', () => {
    const paths = Object.keys((handler.openApiDocument().paths ?? {}) as Record<string, unknown>);
    expect(paths.filter((path) => path.startsWith('/auth'))).toEqual([]);
    expect(handler.assetPaths).toEqual(expect.arrayContaining(['/auth/oidc/login', '/auth/oidc/callback', '/auth/signout', '/auth/session']));
    expect(handler.routes.some((route) => route.path.startsWith('/auth'))).toBe(false);
  });

  it('logs nothing secret: no client secret, session id, code or token', () => {
    const text = logs.join('\n');
    expect(text).not.toContain(idp.clientSecret);
    expect(text).not.toMatch(/agent_platform_session=|code=|eyJ/);
  });

  it('names its cookie with the __Host- prefix and marks it Secure over https', async () => {
    const secure = createHttpHandler(platform, {
      oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, publicUrl: 'https://agents.example.com' },
    });
    const response = await secure.handle({ method: 'GET', url: '/auth/oidc/login', headers: {}, body: null });
    expect(response?.headers['set-cookie']).toMatch(/^__Host-agent_platform_session=login~.*; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600; Secure$/);
  });

  it('refuses a bad configuration when the handler is created', () => {
    expect(() => createHttpHandler(platform, { oidc: { issuer: 'not a url', clientId: 'x', publicUrl: PUBLIC_URL } })).toThrow(/issuer/);
    expect(() =>
      createHttpHandler(platform, { oidc: { issuer: idp.issuer, clientId: 'x', publicUrl: PUBLIC_URL, mapping: { defaultRole: 'superuser' as never } } }),
    ).toThrow(/defaultRole/);
  });
});
