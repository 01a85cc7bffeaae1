/**
 * Console sign-in's storage port: org memberships and console sessions. Conformance:
 * `describeMemberships` and `describeConsoleSessions`.
 * @module
 */
import type { Role } from '../schemas/principal.js';
import type { ConsoleSessionRecord, MembershipRecord } from '../schemas/sign-in.js';

/** Who belongs to which org, with which role; one record per (org, user). */
export interface MembershipsRepository {
  get(orgId: string, userId: string): Promise<MembershipRecord | null>;
  /**
   * The org's memberships, oldest first (`created_at`, then `user_id` in code-unit order). Whole,
   * not paged: an org's people number in the tens or hundreds, and an owner reads them all.
   */
  list(orgId: string): Promise<MembershipRecord[]>;
  /**
   * Stores `record` unless the (org, user) pair has a membership already, and answers the one
   * stored — the new one, or the one that was there, untouched. Of concurrent first sign-ins
   * exactly one membership is made and every caller gets it.
   */
  insertOrGet(record: MembershipRecord): Promise<MembershipRecord>;
  /** Changes the role of an existing membership; `null` (nothing written) when there is none. */
  setRole(orgId: string, userId: string, role: Role): Promise<MembershipRecord | null>;
}

/** Console sessions, by the SHA-256 of their id. */
export interface ConsoleSessionsRepository {
  /** Throws `StorageConflictError` when the hash exists. */
  insert(record: ConsoleSessionRecord): Promise<void>;
  /** The session, expired or not (the caller judges expiry); `null` when there is none. */
  get(idHash: string): Promise<ConsoleSessionRecord | null>;
  /** True when a session was deleted (sign-out). */
  delete(idHash: string): Promise<boolean>;
  /** Deletes up to `limit` sessions whose `expires_at` is at or before `now`; answers how many. */
  deleteExpired(now: string, limit: number): Promise<number>;
}
