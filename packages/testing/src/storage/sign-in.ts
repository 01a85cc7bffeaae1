/**
 * Conformance: console sign-in's `memberships` and `consoleSessions`.
 *
 * - A membership is one per (org, user): `insertOrGet` stores the first and answers the stored
 *   one to every later or concurrent call (a later sign-in never changes a role), `setRole`
 *   changes only an existing one. `list` answers one org's memberships, oldest first (user ids
 *   break ties), as copies.
 * - A session is found only by its exact hash, read back whole, deleted by sign-out, and swept
 *   when expired — a few at a time, never one that is still live.
 * @module
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConsoleSessionRecord, MembershipRecord } from '@agent-platform/core';
import { fixtureTime, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { HOSTILE_TEXTS } from './hostile-inputs.js';

function makeMembership(overrides: Partial<MembershipRecord> = {}): MembershipRecord {
  return { org_id: uniqueId('org'), user_id: uniqueId('oidc'), role: 'member', email: 'ada@acme.test', created_at: fixtureTime(), ...overrides };
}

function makeSession(overrides: Partial<ConsoleSessionRecord> = {}): ConsoleSessionRecord {
  return {
    id_hash: createHash('sha256').update(uniqueId('session')).digest('hex'),
    user_id: uniqueId('oidc'),
    org_id: uniqueId('org'),
    role: 'viewer',
    email: null,
    name: 'Ada',
    created_at: fixtureTime(),
    expires_at: fixtureTime(3600),
    ...overrides,
  };
}

export function describeMemberships(ctx: SuiteContext): void {
  describe('memberships', () => {
    it('stores the first membership of a user in an org and answers it', async () => {
      const membership = makeMembership();
      expect(await ctx.adapter.memberships.get(membership.org_id, membership.user_id)).toBeNull();
      expect(await ctx.adapter.memberships.insertOrGet(membership)).toEqual(membership);
      expect(await ctx.adapter.memberships.get(membership.org_id, membership.user_id)).toEqual(membership);
    });

    it('keeps the stored membership on a later insertOrGet: the role given first stays', async () => {
      const first = makeMembership({ role: 'viewer' });
      await ctx.adapter.memberships.insertOrGet(first);
      const again = await ctx.adapter.memberships.insertOrGet({ ...first, role: 'owner', email: 'other@acme.test', created_at: fixtureTime(60) });
      expect(again).toEqual(first);
      expect(await ctx.adapter.memberships.get(first.org_id, first.user_id)).toEqual(first);
    });

    it('makes exactly one membership of concurrent first sign-ins, and every caller gets it', async () => {
      const base = makeMembership();
      const roles = ['viewer', 'member', 'admin', 'owner'] as const;
      const answers = await Promise.all(
        Array.from({ length: ctx.concurrency }, (_, n) => ctx.adapter.memberships.insertOrGet({ ...base, role: roles[n % roles.length] ?? 'viewer' })),
      );
      const stored = await ctx.adapter.memberships.get(base.org_id, base.user_id);
      expect(stored).not.toBeNull();
      for (const answer of answers) expect(answer).toEqual(stored);
    });

    it('keeps orgs and users apart, and their names from running into one another', async () => {
      const membership = makeMembership();
      await ctx.adapter.memberships.insertOrGet(membership);
      const sameUserOtherOrg = makeMembership({ user_id: membership.user_id, role: 'owner' });
      await ctx.adapter.memberships.insertOrGet(sameUserOtherOrg);
      expect(await ctx.adapter.memberships.get(membership.org_id, membership.user_id)).toEqual(membership);
      expect(await ctx.adapter.memberships.get(sameUserOtherOrg.org_id, membership.user_id)).toEqual(sameUserOtherOrg);
      expect(await ctx.adapter.memberships.get(membership.org_id, uniqueId('oidc'))).toBeNull();
      expect(await ctx.adapter.memberships.get(`${membership.org_id}:${membership.user_id}`, '')).toBeNull();
      expect(await ctx.adapter.memberships.get(membership.org_id.toUpperCase(), membership.user_id)).toBeNull();
    });

    it('changes the role of an existing membership only', async () => {
      const membership = makeMembership({ role: 'viewer' });
      expect(await ctx.adapter.memberships.setRole(membership.org_id, membership.user_id, 'admin')).toBeNull();
      expect(await ctx.adapter.memberships.get(membership.org_id, membership.user_id)).toBeNull();
      await ctx.adapter.memberships.insertOrGet(membership);
      const changed = { ...membership, role: 'admin' as const };
      expect(await ctx.adapter.memberships.setRole(membership.org_id, membership.user_id, 'admin')).toEqual(changed);
      expect(await ctx.adapter.memberships.get(membership.org_id, membership.user_id)).toEqual(changed);
      // And a later sign-in keeps the changed role.
      expect(await ctx.adapter.memberships.insertOrGet(membership)).toEqual(changed);
    });

    it("lists an org's memberships oldest first, user ids breaking ties, and never another org's", async () => {
      const orgId = uniqueId('org');
      expect(await ctx.adapter.memberships.list(orgId)).toEqual([]);
      // Inserted out of order; `b` and `c` joined at the same instant.
      const c = makeMembership({ org_id: orgId, user_id: 'oidc:c', created_at: fixtureTime(60) });
      const a = makeMembership({ org_id: orgId, user_id: 'oidc:z-first', role: 'owner', email: null, created_at: fixtureTime(0) });
      const b = makeMembership({ org_id: orgId, user_id: 'oidc:b', created_at: fixtureTime(60) });
      const d = makeMembership({ org_id: orgId, user_id: 'oidc:a-last', role: 'viewer', created_at: fixtureTime(120) });
      for (const membership of [c, a, d, b]) await ctx.adapter.memberships.insertOrGet(membership);
      // The same user in another org, and an org whose name starts like this one's.
      await ctx.adapter.memberships.insertOrGet(makeMembership({ user_id: 'oidc:b', created_at: fixtureTime(30) }));
      await ctx.adapter.memberships.insertOrGet(makeMembership({ org_id: `${orgId}x`, created_at: fixtureTime(30) }));
      expect(await ctx.adapter.memberships.list(orgId)).toEqual([a, b, c, d]);
      // A role change keeps the member's place.
      await ctx.adapter.memberships.setRole(orgId, 'oidc:b', 'admin');
      expect((await ctx.adapter.memberships.list(orgId)).map((each) => [each.user_id, each.role])).toEqual([
        ['oidc:z-first', 'owner'],
        ['oidc:b', 'admin'],
        ['oidc:c', 'member'],
        ['oidc:a-last', 'viewer'],
      ]);
    });

    it('lists copies: changing one changes nothing stored', async () => {
      const membership = makeMembership();
      await ctx.adapter.memberships.insertOrGet(membership);
      const [listed] = await ctx.adapter.memberships.list(membership.org_id);
      if (!listed) throw new Error('the membership is not listed');
      listed.role = 'owner';
      listed.email = 'changed@acme.test';
      expect(await ctx.adapter.memberships.list(membership.org_id)).toEqual([membership]);
      expect(await ctx.adapter.memberships.get(membership.org_id, membership.user_id)).toEqual(membership);
    });

    it('stores ids and emails with U+0000 and lone surrogates', async () => {
      for (const text of HOSTILE_TEXTS) {
        const membership = makeMembership({ user_id: `oidc:${text}`, email: text });
        expect(await ctx.adapter.memberships.insertOrGet(membership)).toEqual(membership);
        expect(await ctx.adapter.memberships.get(membership.org_id, membership.user_id)).toEqual(membership);
        expect(await ctx.adapter.memberships.list(membership.org_id)).toEqual([membership]);
      }
    });

    it('writes nothing when the transaction throws', async () => {
      const membership = makeMembership();
      await expect(
        ctx.adapter.transaction(async (tx) => {
          expect(await tx.memberships.insertOrGet(membership)).toEqual(membership);
          expect(await tx.memberships.get(membership.org_id, membership.user_id)).toEqual(membership);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await ctx.adapter.memberships.get(membership.org_id, membership.user_id)).toBeNull();
    });
  });
}

export function describeConsoleSessions(ctx: SuiteContext): void {
  describe('consoleSessions', () => {
    it('reads back a session by its hash, every field as written', async () => {
      const session = makeSession();
      const bare = makeSession({ email: null, name: null, role: 'owner' });
      await ctx.adapter.consoleSessions.insert(session);
      await ctx.adapter.consoleSessions.insert(bare);
      expect(await ctx.adapter.consoleSessions.get(session.id_hash)).toEqual(session);
      expect(await ctx.adapter.consoleSessions.get(bare.id_hash)).toEqual(bare);
    });

    it('finds nothing under another hash, or a hash in another case', async () => {
      const session = makeSession();
      await ctx.adapter.consoleSessions.insert(session);
      expect(await ctx.adapter.consoleSessions.get(makeSession().id_hash)).toBeNull();
      expect(await ctx.adapter.consoleSessions.get(session.id_hash.toUpperCase())).toBeNull();
      expect(await ctx.adapter.consoleSessions.get(session.id_hash.slice(0, -1))).toBeNull();
    });

    it('refuses a second session with the same hash, keeping the first', async () => {
      const session = makeSession();
      await ctx.adapter.consoleSessions.insert(session);
      await expect(ctx.adapter.consoleSessions.insert({ ...session, user_id: uniqueId('oidc') })).rejects.toMatchObject({ name: 'StorageConflictError' });
      expect(await ctx.adapter.consoleSessions.get(session.id_hash)).toEqual(session);
    });

    it('deletes a session on sign-out, once', async () => {
      const session = makeSession();
      const other = makeSession();
      await ctx.adapter.consoleSessions.insert(session);
      await ctx.adapter.consoleSessions.insert(other);
      expect(await ctx.adapter.consoleSessions.delete(session.id_hash)).toBe(true);
      expect(await ctx.adapter.consoleSessions.delete(session.id_hash)).toBe(false);
      expect(await ctx.adapter.consoleSessions.get(session.id_hash)).toBeNull();
      expect(await ctx.adapter.consoleSessions.get(other.id_hash)).toEqual(other);
    });

    it('sweeps expired sessions, at most `limit`, and never a live one', async () => {
      // Far in the past, so sessions other tests left on a shared backend are younger than these.
      const expired = [1, 2, 3].map((n) => makeSession({ created_at: '2001-01-01T00:00:00.000Z', expires_at: `2001-01-0${n}T12:00:00.000Z` }));
      const live = makeSession({ created_at: '2001-01-01T00:00:00.000Z', expires_at: '2001-01-10T00:00:00.000Z' });
      for (const session of [...expired, live]) await ctx.adapter.consoleSessions.insert(session);
      const now = '2001-01-05T00:00:00.000Z';
      expect(await ctx.adapter.consoleSessions.deleteExpired(now, 2)).toBe(2);
      expect(await ctx.adapter.consoleSessions.deleteExpired(now, 100)).toBe(1);
      expect(await ctx.adapter.consoleSessions.deleteExpired(now, 100)).toBe(0);
      for (const session of expired) expect(await ctx.adapter.consoleSessions.get(session.id_hash)).toBeNull();
      expect(await ctx.adapter.consoleSessions.get(live.id_hash)).toEqual(live);
    });

    it('writes nothing when the transaction throws', async () => {
      const session = makeSession();
      await expect(
        ctx.adapter.transaction(async (tx) => {
          await tx.consoleSessions.insert(session);
          expect(await tx.consoleSessions.get(session.id_hash)).toEqual(session);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await ctx.adapter.consoleSessions.get(session.id_hash)).toBeNull();
    });
  });
}
