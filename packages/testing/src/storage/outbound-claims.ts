/**
 * Conformance: `outboundMessages.claimDue` — senders take due pending messages under a lease,
 * soonest due first, and concurrent claims never take the same message.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { OutboundClaim, OutboundMessageRecord, StorageRepositories } from '@agent-platform/core';
import { uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { makeOutboundMessageRecord } from '../fixtures/records.js';

const LEASE_MS = 30_000;

/** Length of one test's window of time: room for its messages and a lapsed lease. */
const WINDOW_MS = 10 * 60_000;

/**
 * `claimDue` takes due messages of every org, so over a shared backend one test's claims could
 * take other tests' messages. Each test claims inside a window of time of its own, which ends
 * before every window handed out earlier — in this process, and (on a clock mirrored and sped up
 * a hundredfold, so a process started a few seconds later begins further back than this one
 * reaches) in processes before it: the messages other tests left are due after its `now`. Every
 * window lies before 2000, so messages of other suites (due at 2025's fixture times) are never
 * due either.
 */
const FIRST_WINDOW_END = Date.UTC(2000, 0, 1) - (Date.now() - Date.UTC(2025, 0, 1)) * 100;
let windowsHandedOut = 0;

export interface ClaimWindow {
  /** The instant `ms` into the window. */
  at(ms: number): Date;
  /** The same, as stored. */
  iso(ms: number): string;
}

/** A window of time no other test's messages are due in; see {@link FIRST_WINDOW_END}. */
export function claimWindow(): ClaimWindow {
  windowsHandedOut += 1;
  const start = FIRST_WINDOW_END - windowsHandedOut * WINDOW_MS;
  return { at: (ms) => new Date(start + ms), iso: (ms) => new Date(start + ms).toISOString() };
}

function claimDue(repos: StorageRepositories, request: Partial<OutboundClaim> & Pick<OutboundClaim, 'now'>): Promise<OutboundMessageRecord[]> {
  return repos.outboundMessages.claimDue({ owner: 'sender-a', max: 10, leaseMs: LEASE_MS, ...request });
}

const ids = (messages: readonly { id: string }[]) => messages.map((message) => message.id);

export function describeOutboundClaims(ctx: SuiteContext): void {
  describe('claimDue', () => {
    it('takes due pending messages of every org soonest due first (then by id), at most max, and leases them', async () => {
      const window = claimWindow();
      const base = uniqueId('msg');
      const due = (suffix: string, ms: number): OutboundMessageRecord =>
        makeOutboundMessageRecord({ id: `${base}-${suffix}`, next_attempt_at: window.iso(ms), created_at: window.iso(0) });
      const late = due('a', 3_000);
      const tieC = due('c', 2_000);
      const tieB = due('b', 2_000);
      const early = due('d', 1_000);
      await ctx.adapter.outboundMessages.insertMany([late, tieC]);
      await ctx.adapter.outboundMessages.insertMany([early, tieB]);
      const now = window.at(10_000);
      const claimed = await claimDue(ctx.adapter, { now, max: 3 });
      expect(ids(claimed)).toEqual([early.id, tieB.id, tieC.id]);
      const until = new Date(now.getTime() + LEASE_MS).toISOString();
      expect(claimed[0]).toEqual({ ...early, lease_owner: 'sender-a', lease_expires_at: until });
      for (const message of claimed) expect(await ctx.adapter.outboundMessages.get(message.org_id, message.id)).toEqual(message);
      expect(await claimDue(ctx.adapter, { now, owner: 'sender-b' })).toEqual([{ ...late, lease_owner: 'sender-b', lease_expires_at: until }]);
      expect(await claimDue(ctx.adapter, { now })).toEqual([]);
    });

    it('leaves a message until its next_attempt_at, and never takes one in another status', async () => {
      const window = claimWindow();
      const waiting = makeOutboundMessageRecord({ next_attempt_at: window.iso(5_000) });
      const ended = (['delivered', 'failed', 'cancelled'] as const).map((status) => makeOutboundMessageRecord({ status, next_attempt_at: window.iso(1_000) }));
      await ctx.adapter.outboundMessages.insertMany([waiting, ...ended]);
      expect(await claimDue(ctx.adapter, { now: window.at(4_999) })).toEqual([]);
      expect(ids(await claimDue(ctx.adapter, { now: window.at(5_000) }))).toEqual([waiting.id]);
      for (const message of ended) expect(await ctx.adapter.outboundMessages.get(message.org_id, message.id)).toEqual(message);
      expect(await claimDue(ctx.adapter, { now: window.at(5_000), max: 0 })).toEqual([]);
    });

    it('does not take a leased message again until its lease lapses, then takes it for the new sender', async () => {
      const window = claimWindow();
      const message = makeOutboundMessageRecord({ next_attempt_at: window.iso(0) });
      // Leased by a sender elsewhere, until 20 s into the window.
      const leased = makeOutboundMessageRecord({ next_attempt_at: window.iso(0), lease_owner: 'sender-x', lease_expires_at: window.iso(20_000) });
      await ctx.adapter.outboundMessages.insertMany([message, leased]);
      const [first] = await claimDue(ctx.adapter, { now: window.at(1_000) });
      expect(first?.id).toBe(message.id);
      const lapse = 1_000 + LEASE_MS;
      expect(await claimDue(ctx.adapter, { now: window.at(19_999), owner: 'sender-b' })).toEqual([]);
      expect(ids(await claimDue(ctx.adapter, { now: window.at(20_000), owner: 'sender-b' }))).toEqual([leased.id]);
      expect(await claimDue(ctx.adapter, { now: window.at(lapse - 1), owner: 'sender-b' })).toEqual([]);
      // Lapsed: the lease is taken over, and the old sender can no longer act on it.
      const [again] = await claimDue(ctx.adapter, { now: window.at(lapse), owner: 'sender-b' });
      expect(again).toEqual({ ...message, lease_owner: 'sender-b', lease_expires_at: new Date(window.at(lapse).getTime() + LEASE_MS).toISOString() });
      expect(
        await ctx.adapter.outboundMessages.transition(message.org_id, message.id, { from: ['pending'], leaseOwner: 'sender-a' }, { status: 'delivered' }),
      ).toBeNull();
    });

    it('a message handed back with a later next_attempt_at is taken again once that is due', async () => {
      const window = claimWindow();
      const message = makeOutboundMessageRecord({ next_attempt_at: window.iso(0) });
      await ctx.adapter.outboundMessages.insertMany([message]);
      await claimDue(ctx.adapter, { now: window.at(0) });
      const retry = await ctx.adapter.outboundMessages.transition(
        message.org_id,
        message.id,
        { from: ['pending'], leaseOwner: 'sender-a' },
        { attempt: 1, next_attempt_at: window.iso(60_000), lease_owner: null, lease_expires_at: null },
      );
      expect(retry).not.toBeNull();
      expect(await claimDue(ctx.adapter, { now: window.at(59_999) })).toEqual([]);
      expect(ids(await claimDue(ctx.adapter, { now: window.at(60_000) }))).toEqual([message.id]);
    });

    it('concurrent claims never take the same message, and together take every due one', async () => {
      const window = claimWindow();
      const messages = Array.from({ length: 10 }, (_, n) => makeOutboundMessageRecord({ next_attempt_at: window.iso(n) }));
      await ctx.adapter.outboundMessages.insertMany(messages);
      const results = await Promise.all(Array.from({ length: 5 }, (_, n) => claimDue(ctx.adapter, { now: window.at(1_000), owner: `sender-${n}`, max: 3 })));
      const claimed = results.flat();
      expect(new Set(ids(claimed)).size).toBe(claimed.length);
      expect(ids(claimed).sort()).toEqual(ids(messages).sort());
      for (const [n, result] of results.entries()) {
        expect(result.length).toBeLessThanOrEqual(3);
        for (const message of result) expect(message.lease_owner).toBe(`sender-${n}`);
      }
    });

    it('a claim inside a transaction that throws leaves the messages claimable', async () => {
      const window = claimWindow();
      const message = makeOutboundMessageRecord({ next_attempt_at: window.iso(0) });
      await ctx.adapter.outboundMessages.insertMany([message]);
      const error = new Error('rollback');
      await expect(
        ctx.adapter.transaction(async (tx) => {
          expect(ids(await claimDue(tx, { now: window.at(0), owner: 'sender-tx' }))).toEqual([message.id]);
          expect((await tx.outboundMessages.get(message.org_id, message.id))?.lease_owner).toBe('sender-tx');
          throw error;
        }),
      ).rejects.toBe(error);
      expect(await ctx.adapter.outboundMessages.get(message.org_id, message.id)).toEqual(message);
      expect(ids(await claimDue(ctx.adapter, { now: window.at(0) }))).toEqual([message.id]);
    });
  });
}
