/**
 * The signed-in session, of one of two kinds: an API key, kept in this tab's `sessionStorage`
 * only (gone when the tab closes, never in `localStorage` or a cookie); or a sign-in with the
 * host's OpenID provider, whose session id is an HttpOnly cookie no script here can read — the
 * browser sends it with every same-origin call, and the console adds the CSRF token that
 * `GET /auth/session` gives. Either way, the client SDK that makes the calls.
 */
import { createClient, isAgentPlatformError, type AgentPlatformClient } from '@agent-platform/client';
import type { AuthSessionResponse } from '@agent-platform/core/schemas';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { permissionsOf, type Permissions, type Role } from './permissions.js';
import { apiBase } from './router.js';

const STORAGE_KEY = 'agent-platform-console';

export interface Session {
  /** `null` for a cookie session (OpenID Connect sign-in). */
  apiKey: string | null;
  /** A cookie session's CSRF token, sent as `X-CSRF-Token`; `null` for an API key. */
  csrfToken?: string | null;
  /** Who the key belongs to, when the platform stores the key (`GET /api/keys/current`). */
  userId: string | null;
  orgId: string | null;
  keyName: string | null;
  /**
   * The key's role in its org, read once at sign-in (the API has no way to change a key's role); `null` for a
   * key the platform does not describe.
   */
  role: Role | null;
}

export interface SignedIn extends Session {
  client: AgentPlatformClient;
  signOut(): void;
}

export function clientFor(session: Pick<Session, 'apiKey' | 'csrfToken'>): AgentPlatformClient {
  if (session.apiKey !== null) return createClient({ baseUrl: apiBase, apiKey: session.apiKey });
  // No key: the browser's fetch sends the same-origin session cookie by itself.
  return createClient({ baseUrl: apiBase, headers: session.csrfToken ? { 'x-csrf-token': session.csrfToken } : {} });
}

export function storedSession(): Session | null {
  try {
    const stored = sessionStorage.getItem(STORAGE_KEY);
    const session = stored ? (JSON.parse(stored) as Session) : null;
    // A session stored before roles existed has no `role`: signing in again reads it.
    return session && typeof session.apiKey === 'string' && session.role !== undefined ? session : null;
  } catch {
    return null;
  }
}

export function storeSession(session: Session | null): void {
  if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/**
 * Checks a key with the platform and answers the session for it: who it is, for a key the
 * platform stores; a key a host authenticates some other way is taken once any call accepts it.
 * Throws the platform's error for a key it refuses.
 */
export async function signIn(apiKey: string): Promise<Session> {
  const client = clientFor({ apiKey });
  try {
    const current = await client.apiKeys.current();
    return { apiKey, userId: current.user_id, orgId: current.org_id, keyName: current.name, role: current.role };
  } catch (error) {
    if (!isAgentPlatformError(error) || error.status !== 404) throw error;
    await client.automations.list({ limit: 1 });
    return { apiKey, userId: null, orgId: null, keyName: null, role: null };
  }
}

/** What `GET /auth/session` says, when the host turned OpenID Connect sign-in on. */
export interface CookieSignIn {
  /** The provider's name, for the "Sign in with …" button. */
  provider: string;
  /** The session the browser's cookie holds, if any. */
  session: Session | null;
}

/** Where the browser goes to sign in with the provider. */
export const oidcLoginUrl = `${apiBase}/auth/oidc/login`;

/**
 * Asks the platform whether OpenID Connect sign-in is on and whether this browser holds a
 * session; `null` when sign-in is off (the path is not served) or the platform cannot be reached.
 */
export async function cookieSignIn(): Promise<CookieSignIn | null> {
  try {
    const response = await fetch(`${apiBase}/auth/session`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
    if (!response.ok) return null;
    const body = (await response.json()) as AuthSessionResponse;
    const found = body.session;
    return {
      provider: body.sign_in.provider,
      session: found && {
        apiKey: null,
        csrfToken: found.csrf_token,
        userId: found.user_id,
        orgId: found.org_id,
        keyName: found.name ?? found.email,
        role: found.role,
      },
    };
  } catch {
    return null;
  }
}

/** Ends a cookie session (the token proves the request is the console's own); the cookie is cleared by the answer. */
export async function cookieSignOut(csrfToken: string): Promise<void> {
  await fetch(`${apiBase}/auth/signout`, { method: 'POST', credentials: 'same-origin', headers: { 'x-csrf-token': csrfToken } });
}

export const SessionContext = createContext<SignedIn | null>(null);

export function useSession(): SignedIn {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in app');
  return session;
}

export const useClient = (): AgentPlatformClient => useSession().client;

/** What the signed-in key may do (permissions.ts): pages hide what its role cannot. */
export const usePermissions = (): Permissions => permissionsOf(useSession());
