/**
 * The signed-in session: the API key, kept in this tab's `sessionStorage` only (gone when the tab
 * closes, never in `localStorage` or a cookie), and the client SDK that sends it.
 */
import { createClient, isAgentPlatformError, type AgentPlatformClient } from '@agent-platform/client';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { permissionsOf, type Permissions, type Role } from './permissions.js';
import { apiBase } from './router.js';

const STORAGE_KEY = 'agent-platform-console';

export interface Session {
  apiKey: string;
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

export function clientFor(apiKey: string): AgentPlatformClient {
  return createClient({ baseUrl: apiBase, apiKey });
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
  const client = clientFor(apiKey);
  try {
    const current = await client.apiKeys.current();
    return { apiKey, userId: current.user_id, orgId: current.org_id, keyName: current.name, role: current.role };
  } catch (error) {
    if (!isAgentPlatformError(error) || error.status !== 404) throw error;
    await client.automations.list({ limit: 1 });
    return { apiKey, userId: null, orgId: null, keyName: null, role: null };
  }
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
