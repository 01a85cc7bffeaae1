/**
 * Console sign-in's one story, from the core's side: a user the host's identity provider
 * vouched for is placed in an org (first sign-in) and given a session; a session id presented
 * later is turned back into a principal, with the membership's role as it is then; sign-out
 * deletes it. The HTTP layer owns the provider conversation and the cookies.
 * @module
 */
import type { Clock } from '../ports/clock.js';
import type { StorageAdapter } from '../ports/storage.js';
import type { Principal, Role } from '../schemas/principal.js';
import type { ConsoleSessionRecord, MembershipRecord } from '../schemas/sign-in.js';
import { generateSessionId, hashSessionId } from './session-material.js';

/** Default {@link ConsoleSessionsOptions.ttlMs}: 12 hours, a working day. */
export const DEFAULT_CONSOLE_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** How many expired sessions one sign-in sweeps away, so the table does not grow for ever. */
const EXPIRED_SWEEP = 100;

export interface ConsoleSessionsOptions {
  storage: Pick<StorageAdapter, 'memberships' | 'consoleSessions'>;
  clock: Clock;
  /** How long a session lasts from sign-in; default {@link DEFAULT_CONSOLE_SESSION_TTL_MS}. */
  ttlMs?: number;
}

/** Who signed in, as the identity provider and the mapping say. */
export interface SignInIdentity {
  userId: string;
  orgId: string;
  /** The role the mapping gives: used only when the user has no membership in the org yet. */
  role: Role;
  email: string | null;
  name: string | null;
}

export interface OpenedSession {
  /** The id for the cookie: shown only here, stored only as its hash. */
  sessionId: string;
  session: ConsoleSessionRecord;
  membership: MembershipRecord;
}

export interface AuthenticatedSession {
  principal: Principal;
  session: ConsoleSessionRecord;
}

export class ConsoleSessions {
  private readonly ttlMs: number;

  constructor(private readonly options: ConsoleSessionsOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_CONSOLE_SESSION_TTL_MS;
  }

  /** Places the user in the org (first sign-in only) and opens a session with the membership's role. */
  async signIn(identity: SignInIdentity): Promise<OpenedSession> {
    const now = this.options.clock.now();
    const membership = await this.options.storage.memberships.insertOrGet({
      org_id: identity.orgId,
      user_id: identity.userId,
      role: identity.role,
      email: identity.email,
      created_at: now.toISOString(),
    });
    const sessionId = generateSessionId();
    const session: ConsoleSessionRecord = {
      id_hash: hashSessionId(sessionId),
      user_id: identity.userId,
      org_id: identity.orgId,
      role: membership.role,
      email: identity.email,
      name: identity.name,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.ttlMs).toISOString(),
    };
    await this.options.storage.consoleSessions.insert(session);
    // Best effort: a failed sweep must not fail a sign-in.
    await this.options.storage.consoleSessions.deleteExpired(now.toISOString(), EXPIRED_SWEEP).catch(() => 0);
    return { sessionId, session, membership };
  }

  /**
   * The principal a session id stands for: `null` for an unknown, expired (deleted on the way)
   * or orphaned session (its membership removed). The role is the membership's now, so a role
   * an owner changed applies to sessions already open.
   */
  async authenticate(sessionId: string): Promise<AuthenticatedSession | null> {
    if (sessionId.length === 0 || sessionId.length > 256) return null;
    const idHash = hashSessionId(sessionId);
    const session = await this.options.storage.consoleSessions.get(idHash);
    if (!session) return null;
    if (Date.parse(session.expires_at) <= this.options.clock.now().getTime()) {
      await this.options.storage.consoleSessions.delete(idHash);
      return null;
    }
    const membership = await this.options.storage.memberships.get(session.org_id, session.user_id);
    if (!membership) return null;
    return { principal: { userId: session.user_id, orgId: session.org_id, role: membership.role }, session: { ...session, role: membership.role } };
  }

  /** Ends a session; true when there was one. */
  async signOut(sessionId: string): Promise<boolean> {
    return this.options.storage.consoleSessions.delete(hashSessionId(sessionId));
  }
}
