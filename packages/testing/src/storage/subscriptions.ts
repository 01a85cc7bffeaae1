/**
 * Conformance: `subscriptions` repository (outbound events). Scoped by org; listed oldest first; the
 * enabled ones of an org for the fan-out; a delete takes the subscription's messages with it.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { present } from '../fixtures/present.js';
import { StorageConflictError } from '@agent-platform/core';
import type { SubscriptionRecord } from '@agent-platform/core';
import { fixtureTime, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { makeOutboundMessageRecord, makeSubscriptionRecord } from '../fixtures/records.js';

const ALL = { limit: 100, offset: 0 };

const sortedIds = (records: readonly { id: string }[]) => records.map((record) => record.id).sort();

export function describeSubscriptions(ctx: SuiteContext): void {
  describe('subscriptions', () => {
    it('get returns null for an unknown subscription, and an org without any lists none', async () => {
      const orgId = uniqueId('org');
      expect(await ctx.adapter.subscriptions.get(orgId, uniqueId('sub'))).toBeNull();
      expect(await ctx.adapter.subscriptions.list(orgId, ALL)).toEqual({ items: [], total: 0 });
      expect(await ctx.adapter.subscriptions.listEnabled(orgId)).toEqual([]);
    });

    it("insert then get returns the record; another org's id reads as missing", async () => {
      const record = makeSubscriptionRecord({
        description: 'deploy bot',
        event_types: ['delivery.received', 'run.started', 'run.completed', 'run.failed', 'run.cancelled', 'subscription.disabled'],
        enabled: false,
        disabled_reason: 'failing for 5 days',
        consecutive_failures: 12,
        failing_since: fixtureTime(1),
        last_success_at: fixtureTime(0),
      });
      await ctx.adapter.subscriptions.insert(record);
      expect(await ctx.adapter.subscriptions.get(record.org_id, record.id)).toEqual(record);
      expect(await ctx.adapter.subscriptions.get(uniqueId('org'), record.id)).toBeNull();
    });

    it('insert with an existing id throws StorageConflictError and keeps the stored record', async () => {
      const existing = makeSubscriptionRecord();
      await ctx.adapter.subscriptions.insert(existing);
      const clash = makeSubscriptionRecord({ id: existing.id, url: 'https://elsewhere.example.com/' });
      await expect(ctx.adapter.subscriptions.insert(clash)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.subscriptions.get(existing.org_id, existing.id)).toEqual(existing);
      expect(await ctx.adapter.subscriptions.get(clash.org_id, clash.id)).toBeNull();
    });

    it("list returns the org's subscriptions oldest first, then by id, in pages counted in full", async () => {
      const orgId = uniqueId('org');
      const base = uniqueId('sub');
      const at = (suffix: string, createdAt: string): SubscriptionRecord =>
        makeSubscriptionRecord({ id: `${base}-${suffix}`, org_id: orgId, created_at: createdAt });
      // As text, `…:01.500Z` sorts before `…:01Z`; as instants it comes after.
      const early = at('d', '2025-01-01T00:00:01Z');
      const half = at('a', '2025-01-01T00:00:01.500Z');
      const tieB = at('b', fixtureTime(20));
      const tieC = at('c', fixtureTime(20));
      const other = makeSubscriptionRecord({ created_at: fixtureTime(5) });
      for (const record of [tieC, other, half, tieB, early]) await ctx.adapter.subscriptions.insert(record);
      const ordered = [early, half, tieB, tieC];
      expect(await ctx.adapter.subscriptions.list(orgId, ALL)).toEqual({ items: ordered, total: 4 });
      expect(await ctx.adapter.subscriptions.list(orgId, { limit: 2, offset: 1 })).toEqual({ items: ordered.slice(1, 3), total: 4 });
      expect(await ctx.adapter.subscriptions.list(orgId, { limit: 2, offset: 4 })).toEqual({ items: [], total: 4 });
      expect(await ctx.adapter.subscriptions.list(other.org_id, ALL)).toEqual({ items: [other], total: 1 });
    });

    it("listEnabled returns only the org's enabled subscriptions, and follows updates", async () => {
      const orgId = uniqueId('org');
      const on = [makeSubscriptionRecord({ org_id: orgId }), makeSubscriptionRecord({ org_id: orgId, created_at: fixtureTime(1) })];
      const off = makeSubscriptionRecord({ org_id: orgId, enabled: false });
      const elsewhere = makeSubscriptionRecord({ enabled: true });
      for (const record of [...on, off, elsewhere]) await ctx.adapter.subscriptions.insert(record);
      const enabled = await ctx.adapter.subscriptions.listEnabled(orgId);
      expect(sortedIds(enabled)).toEqual(sortedIds(on));
      for (const record of enabled) expect(record).toEqual(on.find((candidate) => candidate.id === record.id));

      const disabled = { ...present(on[0]), enabled: false, disabled_reason: 'failing for 5 days' };
      const reenabled = { ...off, enabled: true };
      expect(await ctx.adapter.subscriptions.update(disabled)).toBe(true);
      expect(await ctx.adapter.subscriptions.update(reenabled)).toBe(true);
      expect(sortedIds(await ctx.adapter.subscriptions.listEnabled(orgId))).toEqual(sortedIds([present(on[1]), reenabled]));
      expect(await ctx.adapter.subscriptions.listEnabled(elsewhere.org_id)).toEqual([elsewhere]);
    });

    it("update replaces the org's record; false for an unknown id or another org's, which stays as it was", async () => {
      const record = makeSubscriptionRecord();
      await ctx.adapter.subscriptions.insert(record);
      const changed: SubscriptionRecord = {
        ...record,
        url: 'https://hooks.example.com/v2',
        event_types: ['run.failed'],
        description: 'only failures',
        consecutive_failures: 3,
        failing_since: fixtureTime(7),
        updated_at: fixtureTime(8),
      };
      expect(await ctx.adapter.subscriptions.update(changed)).toBe(true);
      expect(await ctx.adapter.subscriptions.get(record.org_id, record.id)).toEqual(changed);
      expect(await ctx.adapter.subscriptions.update(makeSubscriptionRecord({ org_id: record.org_id }))).toBe(false);
      expect(await ctx.adapter.subscriptions.update({ ...changed, org_id: uniqueId('org'), url: 'https://evil.example.com/' })).toBe(false);
      expect(await ctx.adapter.subscriptions.get(record.org_id, record.id)).toEqual(changed);
    });

    it('delete removes the subscription and every message of it, and nothing of other subscriptions or orgs', async () => {
      const subscription = makeSubscriptionRecord();
      const orgId = subscription.org_id;
      const sibling = makeSubscriptionRecord({ org_id: orgId });
      await ctx.adapter.subscriptions.insert(subscription);
      await ctx.adapter.subscriptions.insert(sibling);
      const mine = (['pending', 'delivered', 'failed', 'cancelled'] as const).map((status) =>
        makeOutboundMessageRecord({ org_id: orgId, subscription_id: subscription.id, status, next_attempt_at: null }),
      );
      const siblings = makeOutboundMessageRecord({ org_id: orgId, subscription_id: sibling.id });
      // The same subscription id in another org is another org's business.
      const otherOrg = makeOutboundMessageRecord({ subscription_id: subscription.id });
      await ctx.adapter.outboundMessages.insertMany([...mine, siblings, otherOrg]);

      expect(await ctx.adapter.subscriptions.delete(uniqueId('org'), subscription.id)).toBe(false);
      expect(await ctx.adapter.subscriptions.get(orgId, subscription.id)).toEqual(subscription);
      expect((await ctx.adapter.outboundMessages.listBySubscription(orgId, subscription.id, ALL)).total).toBe(4);

      expect(await ctx.adapter.subscriptions.delete(orgId, subscription.id)).toBe(true);
      expect(await ctx.adapter.subscriptions.get(orgId, subscription.id)).toBeNull();
      expect(await ctx.adapter.subscriptions.list(orgId, ALL)).toEqual({ items: [sibling], total: 1 });
      expect(await ctx.adapter.subscriptions.listEnabled(orgId)).toEqual([sibling]);
      expect(await ctx.adapter.outboundMessages.listBySubscription(orgId, subscription.id, ALL)).toEqual({ items: [], total: 0 });
      for (const message of mine) expect(await ctx.adapter.outboundMessages.get(orgId, message.id)).toBeNull();
      expect(await ctx.adapter.outboundMessages.get(orgId, siblings.id)).toEqual(siblings);
      expect(await ctx.adapter.outboundMessages.get(otherOrg.org_id, otherOrg.id)).toEqual(otherOrg);
      expect(await ctx.adapter.subscriptions.delete(orgId, subscription.id)).toBe(false);

      // The id is free again, and starts without messages.
      await ctx.adapter.subscriptions.insert(subscription);
      expect(await ctx.adapter.outboundMessages.listBySubscription(orgId, subscription.id, ALL)).toEqual({ items: [], total: 0 });
    });

    it('records are copied on insert, on update and on every read', async () => {
      const record = makeSubscriptionRecord();
      const expected = structuredClone(record);
      await ctx.adapter.subscriptions.insert(record);
      record.event_types.push('run.started');
      record.url = 'https://scribbled.example.com/';
      const read = await ctx.adapter.subscriptions.get(expected.org_id, expected.id);
      present(read).event_types.length = 0;
      const [listed] = (await ctx.adapter.subscriptions.list(expected.org_id, ALL)).items;
      present(listed).enabled = false;
      const [enabled] = await ctx.adapter.subscriptions.listEnabled(expected.org_id);
      present(enabled).secret_encrypted = 'scribbled';
      expect(await ctx.adapter.subscriptions.get(expected.org_id, expected.id)).toEqual(expected);

      const updated = { ...structuredClone(expected), description: 'updated' };
      const updatedExpected = structuredClone(updated);
      await ctx.adapter.subscriptions.update(updated);
      updated.event_types.push('run.cancelled');
      expect(await ctx.adapter.subscriptions.get(expected.org_id, expected.id)).toEqual(updatedExpected);
    });

    describe('inside a transaction', () => {
      it('a throw rolls back inserts, updates and deletes, the deleted messages included', async () => {
        const kept = makeSubscriptionRecord({ created_at: fixtureTime(1) });
        const orgId = kept.org_id;
        const deleted = makeSubscriptionRecord({ org_id: orgId, created_at: fixtureTime(2) });
        const message = makeOutboundMessageRecord({ org_id: orgId, subscription_id: deleted.id });
        await ctx.adapter.subscriptions.insert(kept);
        await ctx.adapter.subscriptions.insert(deleted);
        await ctx.adapter.outboundMessages.insertMany([message]);
        const added = makeSubscriptionRecord({ org_id: orgId, created_at: fixtureTime(3) });
        const error = new Error('rollback');

        await expect(
          ctx.adapter.transaction(async (tx) => {
            await tx.subscriptions.insert(added);
            expect(await tx.subscriptions.update({ ...kept, enabled: false })).toBe(true);
            expect(await tx.subscriptions.delete(orgId, deleted.id)).toBe(true);
            // The transaction reads its own writes; everyone else reads the committed state.
            expect(await tx.subscriptions.list(orgId, ALL)).toEqual({ items: [{ ...kept, enabled: false }, added], total: 2 });
            expect(await tx.subscriptions.listEnabled(orgId)).toEqual([added]);
            expect(await tx.outboundMessages.get(orgId, message.id)).toBeNull();
            expect(await ctx.adapter.subscriptions.list(orgId, ALL)).toEqual({ items: [kept, deleted], total: 2 });
            expect(await ctx.adapter.outboundMessages.get(orgId, message.id)).toEqual(message);
            throw error;
          }),
        ).rejects.toBe(error);

        expect(await ctx.adapter.subscriptions.list(orgId, ALL)).toEqual({ items: [kept, deleted], total: 2 });
        expect(sortedIds(await ctx.adapter.subscriptions.listEnabled(orgId))).toEqual(sortedIds([kept, deleted]));
        expect(await ctx.adapter.outboundMessages.get(orgId, message.id)).toEqual(message);
        expect(await ctx.adapter.outboundMessages.listBySubscription(orgId, deleted.id, ALL)).toEqual({ items: [message], total: 1 });
      });

      it('commits them together', async () => {
        const subscription = makeSubscriptionRecord();
        const message = makeOutboundMessageRecord({ org_id: subscription.org_id, subscription_id: subscription.id });
        await ctx.adapter.transaction(async (tx) => {
          await tx.subscriptions.insert(subscription);
          await tx.outboundMessages.insertMany([message]);
        });
        expect(await ctx.adapter.subscriptions.get(subscription.org_id, subscription.id)).toEqual(subscription);
        expect(await ctx.adapter.outboundMessages.get(subscription.org_id, message.id)).toEqual(message);
        await ctx.adapter.transaction(async (tx) => {
          expect(await tx.subscriptions.delete(subscription.org_id, subscription.id)).toBe(true);
        });
        expect(await ctx.adapter.outboundMessages.get(subscription.org_id, message.id)).toBeNull();
      });
    });
  });
}
