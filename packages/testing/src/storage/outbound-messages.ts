/**
 * Conformance: `outboundMessages` repository (outbound events) — inserted in batches (all or nothing),
 * listed per subscription newest first, changed only by a compare-and-set `transition`. Claims
 * (`claimDue`) have their own group, in `outbound-claims.ts`.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { present } from '../fixtures/present.js';
import { StorageConflictError } from '@agent-platform/core';
import type { OutboundMessageRecord, OutboundMessageStatus } from '@agent-platform/core';
import { fixtureTime, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { describeOutboundClaims } from './outbound-claims.js';
import { describeOutboundHostileValues } from './outbound-hostile.js';
import { makeOutboundMessageRecord } from '../fixtures/records.js';

const ALL = { limit: 100, offset: 0 };

/** A failed attempt as a sender logs it. */
const ATTEMPT = { attempt: 1, at: fixtureTime(5), status_code: 503, latency_ms: 120, error: 'HTTP 503' };

export function describeOutboundMessages(ctx: SuiteContext): void {
  describe('outboundMessages', () => {
    it("insertMany then get returns each record; another org's id reads as missing", async () => {
      const orgId = uniqueId('org');
      const pending = makeOutboundMessageRecord({ org_id: orgId });
      const failed = makeOutboundMessageRecord({
        org_id: orgId,
        status: 'failed',
        attempt: 1,
        next_attempt_at: null,
        detail: 'gave up after 1 attempt',
        attempts: [ATTEMPT],
      });
      await ctx.adapter.outboundMessages.insertMany([pending, failed]);
      expect(await ctx.adapter.outboundMessages.get(orgId, pending.id)).toEqual(pending);
      expect(await ctx.adapter.outboundMessages.get(orgId, failed.id)).toEqual(failed);
      expect(await ctx.adapter.outboundMessages.get(uniqueId('org'), pending.id)).toBeNull();
      expect(await ctx.adapter.outboundMessages.get(orgId, uniqueId('msg'))).toBeNull();
      await expect(ctx.adapter.outboundMessages.insertMany([])).resolves.toBeUndefined();
    });

    it('insertMany with a taken id, or one given twice, throws StorageConflictError and inserts none', async () => {
      const existing = makeOutboundMessageRecord();
      await ctx.adapter.outboundMessages.insertMany([existing]);
      const scope = { org_id: existing.org_id, subscription_id: uniqueId('sub') };
      const before = makeOutboundMessageRecord(scope);
      const after = makeOutboundMessageRecord(scope);
      const clash = makeOutboundMessageRecord({ ...scope, id: existing.id, status: 'delivered' });
      await expect(ctx.adapter.outboundMessages.insertMany([before, clash, after])).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.outboundMessages.get(existing.org_id, existing.id)).toEqual(existing);
      expect(await ctx.adapter.outboundMessages.listBySubscription(scope.org_id, scope.subscription_id, ALL)).toEqual({ items: [], total: 0 });

      const first = makeOutboundMessageRecord(scope);
      const repeat = makeOutboundMessageRecord({ ...scope, id: first.id });
      await expect(ctx.adapter.outboundMessages.insertMany([first, repeat])).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.outboundMessages.get(scope.org_id, first.id)).toBeNull();
    });

    it("listBySubscription returns only that subscription's messages in the org, newest first then by id descending, paged", async () => {
      const scope = { org_id: uniqueId('org'), subscription_id: uniqueId('sub') };
      const base = uniqueId('msg');
      const at = (suffix: string, createdAt: string): OutboundMessageRecord =>
        makeOutboundMessageRecord({ ...scope, id: `${base}-${suffix}`, created_at: createdAt });
      // As text, `…:01.500Z` sorts before `…:01Z`; as instants it comes after.
      const whole = at('d', '2025-01-01T00:00:01Z');
      const half = at('e', '2025-01-01T00:00:01.500Z');
      const tieB = at('b', fixtureTime(20));
      const tieC = at('c', fixtureTime(20));
      const late = at('a', fixtureTime(30));
      const otherSubscription = makeOutboundMessageRecord({ org_id: scope.org_id, created_at: fixtureTime(25) });
      const otherOrg = makeOutboundMessageRecord({ subscription_id: scope.subscription_id, created_at: fixtureTime(25) });
      await ctx.adapter.outboundMessages.insertMany([tieB, otherOrg, whole, late]);
      await ctx.adapter.outboundMessages.insertMany([otherSubscription, half, tieC]);
      const newestFirst = [late, tieC, tieB, half, whole];
      const list = (limit: number, offset: number) => ctx.adapter.outboundMessages.listBySubscription(scope.org_id, scope.subscription_id, { limit, offset });
      expect(await list(10, 0)).toEqual({ items: newestFirst, total: 5 });
      expect(await list(2, 0)).toEqual({ items: newestFirst.slice(0, 2), total: 5 });
      expect(await list(2, 2)).toEqual({ items: newestFirst.slice(2, 4), total: 5 });
      expect(await list(2, 4)).toEqual({ items: newestFirst.slice(4), total: 5 });
      expect(await list(2, 5)).toEqual({ items: [], total: 5 });
      expect(await ctx.adapter.outboundMessages.listBySubscription(otherOrg.org_id, scope.subscription_id, ALL)).toEqual({
        items: [otherOrg],
        total: 1,
      });
      expect(await ctx.adapter.outboundMessages.listBySubscription(uniqueId('org'), scope.subscription_id, ALL)).toEqual({
        items: [],
        total: 0,
      });
    });

    it('listBySubscription with a status lists only the messages in it, paged and counted within it', async () => {
      const scope = { org_id: uniqueId('org'), subscription_id: uniqueId('sub') };
      const statuses: OutboundMessageStatus[] = ['pending', 'delivered', 'failed', 'delivered', 'cancelled', 'delivered'];
      const messages = statuses.map((status, n) => makeOutboundMessageRecord({ ...scope, status, created_at: fixtureTime(n) }));
      await ctx.adapter.outboundMessages.insertMany(messages);
      const list = (status: OutboundMessageStatus, limit = 10, offset = 0) =>
        ctx.adapter.outboundMessages.listBySubscription(scope.org_id, scope.subscription_id, { limit, offset, status });
      const delivered = [messages[5], messages[3], messages[1]];
      expect(await list('delivered')).toEqual({ items: delivered, total: 3 });
      expect(await list('delivered', 1, 1)).toEqual({ items: [messages[3]], total: 3 });
      expect(await list('pending')).toEqual({ items: [messages[0]], total: 1 });
      expect(await list('cancelled')).toEqual({ items: [messages[4]], total: 1 });
      expect(await ctx.adapter.outboundMessages.listBySubscription(uniqueId('org'), scope.subscription_id, { ...ALL, status: 'delivered' })).toEqual({
        items: [],
        total: 0,
      });
    });

    describe('transition', () => {
      it('writes the members of the patch that are not undefined when the status is in from, and returns the message as stored', async () => {
        const message = makeOutboundMessageRecord({ lease_owner: 'sender-a', lease_expires_at: fixtureTime(60) });
        await ctx.adapter.outboundMessages.insertMany([message]);
        const retried = await ctx.adapter.outboundMessages.transition(
          message.org_id,
          message.id,
          { from: ['pending'] },
          {
            attempt: 1,
            attempts: [ATTEMPT],
            next_attempt_at: fixtureTime(65),
            updated_at: fixtureTime(5),
            lease_owner: null,
            lease_expires_at: null,
            detail: undefined,
          },
        );
        const expected: OutboundMessageRecord = {
          ...message,
          attempt: 1,
          attempts: [ATTEMPT],
          next_attempt_at: fixtureTime(65),
          updated_at: fixtureTime(5),
          lease_owner: null,
          lease_expires_at: null,
        };
        expect(retried).toEqual(expected);
        expect(await ctx.adapter.outboundMessages.get(message.org_id, message.id)).toEqual(expected);

        const delivered = await ctx.adapter.outboundMessages.transition(
          message.org_id,
          message.id,
          { from: ['pending', 'failed'] },
          { status: 'delivered', next_attempt_at: null },
        );
        expect(delivered).toEqual({ ...expected, status: 'delivered', next_attempt_at: null });
        // No longer pending: refused, and nothing written.
        expect(await ctx.adapter.outboundMessages.transition(message.org_id, message.id, { from: ['pending'] }, { status: 'cancelled' })).toBeNull();
        expect(await ctx.adapter.outboundMessages.get(message.org_id, message.id)).toEqual(delivered);
      });

      it('a leaseOwner guard requires that owner, and null requires none', async () => {
        const held = makeOutboundMessageRecord({ lease_owner: 'sender-a', lease_expires_at: fixtureTime(60) });
        const free = makeOutboundMessageRecord();
        await ctx.adapter.outboundMessages.insertMany([held, free]);
        const transition = (message: OutboundMessageRecord, leaseOwner: string | null | undefined) =>
          ctx.adapter.outboundMessages.transition(
            message.org_id,
            message.id,
            leaseOwner === undefined ? { from: ['pending'] } : { from: ['pending'], leaseOwner },
            { detail: `by ${String(leaseOwner)}` },
          );
        expect(await transition(held, 'sender-b')).toBeNull();
        expect(await transition(held, null)).toBeNull();
        expect(await transition(free, 'sender-a')).toBeNull();
        expect(await ctx.adapter.outboundMessages.get(held.org_id, held.id)).toEqual(held);
        expect(await ctx.adapter.outboundMessages.get(free.org_id, free.id)).toEqual(free);
        expect(await transition(held, 'sender-a')).toEqual({ ...held, detail: 'by sender-a' });
        expect(await transition(free, null)).toEqual({ ...free, detail: 'by null' });
        expect(await transition(held, undefined)).toEqual({ ...held, detail: 'by undefined' });
      });

      it("another org's message, or an unknown one, is refused", async () => {
        const message = makeOutboundMessageRecord();
        await ctx.adapter.outboundMessages.insertMany([message]);
        expect(await ctx.adapter.outboundMessages.transition(uniqueId('org'), message.id, { from: ['pending'] }, { status: 'cancelled' })).toBeNull();
        expect(await ctx.adapter.outboundMessages.transition(message.org_id, uniqueId('msg'), { from: ['pending'] }, { status: 'cancelled' })).toBeNull();
        expect(await ctx.adapter.outboundMessages.get(message.org_id, message.id)).toEqual(message);
      });

      it('moves a message between the status filters of listBySubscription', async () => {
        const message = makeOutboundMessageRecord();
        await ctx.adapter.outboundMessages.insertMany([message]);
        const list = (status: OutboundMessageStatus) =>
          ctx.adapter.outboundMessages.listBySubscription(message.org_id, message.subscription_id, { ...ALL, status });
        expect((await list('pending')).total).toBe(1);
        const cancelled = await ctx.adapter.outboundMessages.transition(
          message.org_id,
          message.id,
          { from: ['pending'] },
          { status: 'cancelled', detail: 'cancelled by a user' },
        );
        expect(await list('pending')).toEqual({ items: [], total: 0 });
        expect(await list('cancelled')).toEqual({ items: [cancelled], total: 1 });
        // A replay puts it back.
        const replayed = await ctx.adapter.outboundMessages.transition(
          message.org_id,
          message.id,
          { from: ['cancelled', 'failed'] },
          { status: 'pending', detail: null },
        );
        expect(await list('pending')).toEqual({ items: [replayed], total: 1 });
        expect(await list('cancelled')).toEqual({ items: [], total: 0 });
      });

      it('of concurrent transitions from one state, exactly one succeeds', async () => {
        const message = makeOutboundMessageRecord();
        await ctx.adapter.outboundMessages.insertMany([message]);
        const results = await Promise.all(
          Array.from({ length: Math.min(ctx.concurrency, 10) }, (_, n) =>
            ctx.adapter.outboundMessages.transition(message.org_id, message.id, { from: ['pending'] }, { status: 'delivered', detail: `sender ${n}` }),
          ),
        );
        const winners = results.filter((result) => result !== null);
        expect(winners).toHaveLength(1);
        expect(await ctx.adapter.outboundMessages.get(message.org_id, message.id)).toEqual(winners[0]);
      });
    });

    it('inside a transaction: reads see its own writes, others the committed ones, and a throw rolls them back', async () => {
      const scope = { org_id: uniqueId('org'), subscription_id: uniqueId('sub') };
      const kept = makeOutboundMessageRecord({ ...scope, created_at: fixtureTime(1) });
      await ctx.adapter.outboundMessages.insertMany([kept]);
      const added = makeOutboundMessageRecord({ ...scope, created_at: fixtureTime(2) });
      const error = new Error('rollback');
      await expect(
        ctx.adapter.transaction(async (tx) => {
          await tx.outboundMessages.insertMany([added]);
          const delivered = await tx.outboundMessages.transition(scope.org_id, kept.id, { from: ['pending'] }, { status: 'delivered', next_attempt_at: null });
          expect(await tx.outboundMessages.listBySubscription(scope.org_id, scope.subscription_id, ALL)).toEqual({ items: [added, delivered], total: 2 });
          expect(await tx.outboundMessages.listBySubscription(scope.org_id, scope.subscription_id, { ...ALL, status: 'pending' })).toEqual({
            items: [added],
            total: 1,
          });
          expect(await ctx.adapter.outboundMessages.listBySubscription(scope.org_id, scope.subscription_id, ALL)).toEqual({ items: [kept], total: 1 });
          // A conflict inside is caught, and the transaction goes on.
          await expect(tx.outboundMessages.insertMany([makeOutboundMessageRecord({ id: kept.id })])).rejects.toBeInstanceOf(StorageConflictError);
          throw error;
        }),
      ).rejects.toBe(error);
      expect(await ctx.adapter.outboundMessages.listBySubscription(scope.org_id, scope.subscription_id, ALL)).toEqual({ items: [kept], total: 1 });
      expect(await ctx.adapter.outboundMessages.get(scope.org_id, added.id)).toBeNull();

      await ctx.adapter.transaction(async (tx) => {
        await tx.outboundMessages.insertMany([added]);
      });
      expect(await ctx.adapter.outboundMessages.get(scope.org_id, added.id)).toEqual(added);
    });

    it('records are copied on insertMany, on transition and on every read', async () => {
      const message = makeOutboundMessageRecord();
      const expected = structuredClone(message);
      await ctx.adapter.outboundMessages.insertMany([message]);
      message.payload.data.scribbled = true;
      message.attempts.push(ATTEMPT);
      const read = await ctx.adapter.outboundMessages.get(expected.org_id, expected.id);
      present(read).payload.type = 'run.failed';
      const [listed] = (await ctx.adapter.outboundMessages.listBySubscription(expected.org_id, expected.subscription_id, ALL)).items;
      present(listed).attempts.push(ATTEMPT);
      expect(await ctx.adapter.outboundMessages.get(expected.org_id, expected.id)).toEqual(expected);

      const patch = { attempts: [ATTEMPT] };
      const written = await ctx.adapter.outboundMessages.transition(expected.org_id, expected.id, { from: ['pending'] }, patch);
      patch.attempts.push(ATTEMPT);
      present(written).attempts.length = 0;
      expect(await ctx.adapter.outboundMessages.get(expected.org_id, expected.id)).toEqual({ ...expected, attempts: [ATTEMPT] });
    });

    describeOutboundClaims(ctx);
    describeOutboundHostileValues(ctx);
  });
}
