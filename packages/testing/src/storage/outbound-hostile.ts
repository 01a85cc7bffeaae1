/**
 * Conformance: the values of `hostile-values.ts` (lone surrogates, U+0000, look-alikes of an
 * adapter's escaping) in subscriptions, outbound messages and concurrency keys: kept exactly in
 * every free-text field, and in the keys records are found by — which find exactly their record,
 * or nothing, and never throw.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { OutboundMessageStatus, StorageRepositories } from '@agent-platform/core';
import { fixtureTime, makeRunRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { HOSTILE_TEXTS } from './hostile-values.js';
import { claimWindow } from './outbound-claims.js';
import { makeOutboundMessageRecord, makeSubscriptionRecord } from '../fixtures/records.js';

const ALL = { limit: 10, offset: 0 };

/** Every lookup, update and delete of the outbound repositories and flow control by an unknown `key`. */
async function expectNothingFound(repos: StorageRepositories, key: string, orgId: string): Promise<void> {
  expect(await repos.subscriptions.get(orgId, key)).toBeNull();
  expect(await repos.subscriptions.get(key, key)).toBeNull();
  expect(await repos.subscriptions.list(key, ALL)).toEqual({ items: [], total: 0 });
  expect(await repos.subscriptions.listEnabled(key)).toEqual([]);
  expect(await repos.subscriptions.update(makeSubscriptionRecord({ id: key, org_id: orgId }))).toBe(false);
  expect(await repos.subscriptions.delete(orgId, key)).toBe(false);
  expect(await repos.subscriptions.delete(key, key)).toBe(false);

  expect(await repos.outboundMessages.get(orgId, key)).toBeNull();
  expect(await repos.outboundMessages.get(key, key)).toBeNull();
  expect(await repos.outboundMessages.listBySubscription(orgId, key, ALL)).toEqual({ items: [], total: 0 });
  expect(await repos.outboundMessages.listBySubscription(key, key, { ...ALL, status: key as OutboundMessageStatus })).toEqual({ items: [], total: 0 });
  expect(await repos.outboundMessages.transition(orgId, key, { from: ['pending'] }, { detail: key })).toBeNull();
  expect(await repos.outboundMessages.transition(key, key, { from: [key as OutboundMessageStatus], leaseOwner: key }, { status: 'delivered' })).toBeNull();

  expect(await repos.runs.listLive(orgId, key, key)).toEqual([]);
  expect(await repos.runs.listLive(key, key, null)).toEqual([]);
  expect(await repos.runs.countCreatedSince(key, key, fixtureTime(0))).toBe(0);
}

/** Fresh keys with U+0000 or a lone surrogate, at the end and at the start. */
function unknownKeys(): string[] {
  return ['\u0000', '\ud800', '\udc00', '\u0000\ud800\uffff', '\uffff0'].flatMap((suffix) => [`${uniqueId('key')}${suffix}`, `${suffix}${uniqueId('key')}`]);
}

export function describeOutboundHostileValues(ctx: SuiteContext): void {
  describe('hostile values in subscriptions, outbound messages and concurrency keys', () => {
    it('subscriptions and messages keep them in every string, through every read and write', async () => {
      for (const text of HOSTILE_TEXTS) {
        const subscription = makeSubscriptionRecord({ url: text, description: text, disabled_reason: text, secret_encrypted: text });
        await ctx.adapter.subscriptions.insert(subscription);
        expect(await ctx.adapter.subscriptions.get(subscription.org_id, subscription.id)).toEqual(subscription);
        expect(await ctx.adapter.subscriptions.listEnabled(subscription.org_id)).toEqual([subscription]);
        const updated = { ...subscription, description: `${text}${text}` };
        expect(await ctx.adapter.subscriptions.update(updated)).toBe(true);
        expect(await ctx.adapter.subscriptions.list(subscription.org_id, ALL)).toEqual({ items: [updated], total: 1 });

        const message = makeOutboundMessageRecord({
          org_id: subscription.org_id,
          subscription_id: subscription.id,
          payload: { type: 'run.failed', timestamp: fixtureTime(0), data: { error_detail: text, [text]: [...HOSTILE_TEXTS] } },
          detail: text,
          attempts: [{ attempt: 1, at: fixtureTime(1), status_code: null, latency_ms: 5, error: text }],
          lease_owner: text,
          lease_expires_at: fixtureTime(60),
        });
        await ctx.adapter.outboundMessages.insertMany([message]);
        expect(await ctx.adapter.outboundMessages.get(message.org_id, message.id)).toEqual(message);
        expect(
          await ctx.adapter.outboundMessages.transition(message.org_id, message.id, { from: ['pending'], leaseOwner: `${text}\u0000` }, { detail: null }),
        ).toBeNull();
        const failed = await ctx.adapter.outboundMessages.transition(
          message.org_id,
          message.id,
          { from: ['pending'], leaseOwner: text },
          { status: 'failed', detail: `${text}!`, next_attempt_at: null, lease_owner: null },
        );
        expect(failed).toEqual({ ...message, status: 'failed', detail: `${text}!`, next_attempt_at: null, lease_owner: null });
        expect(await ctx.adapter.outboundMessages.listBySubscription(message.org_id, message.subscription_id, { ...ALL, status: 'failed' })).toEqual({
          items: [failed],
          total: 1,
        });
      }
    });

    it('records under keys with them are found, claimed, changed and deleted by exactly those keys', async () => {
      for (const text of HOSTILE_TEXTS) {
        const orgId = `${uniqueId('org')}${text}`;
        const subscription = makeSubscriptionRecord({ id: `${uniqueId('sub')}${text}`, org_id: orgId });
        const lookalike = makeSubscriptionRecord({ id: `${subscription.id}\uffff0`, org_id: orgId, created_at: fixtureTime(1) });
        await ctx.adapter.subscriptions.insert(subscription);
        await ctx.adapter.subscriptions.insert(lookalike);
        expect(await ctx.adapter.subscriptions.get(orgId, subscription.id)).toEqual(subscription);
        expect(await ctx.adapter.subscriptions.get(`${orgId}\u0000`, subscription.id)).toBeNull();

        const window = claimWindow();
        const owner = `${uniqueId('sender')}${text}`;
        const message = makeOutboundMessageRecord({
          id: `${uniqueId('msg')}${text}`,
          org_id: orgId,
          subscription_id: subscription.id,
          next_attempt_at: window.iso(0),
        });
        const sibling = makeOutboundMessageRecord({ org_id: orgId, subscription_id: lookalike.id, next_attempt_at: window.iso(1) });
        await ctx.adapter.outboundMessages.insertMany([message, sibling]);
        expect(await ctx.adapter.outboundMessages.listBySubscription(orgId, subscription.id, ALL)).toEqual({ items: [message], total: 1 });
        const claimed = await ctx.adapter.outboundMessages.claimDue({ owner, max: 1, leaseMs: 1_000, now: window.at(5) });
        expect(claimed).toEqual([{ ...message, lease_owner: owner, lease_expires_at: window.iso(1_005) }]);
        expect(await ctx.adapter.outboundMessages.transition(orgId, message.id, { from: ['pending'], leaseOwner: owner }, { status: 'delivered' })).toEqual({
          ...claimed[0],
          status: 'delivered',
        });
        // Let the look-alike's message go, so no later claim of this test meets it.
        await ctx.adapter.outboundMessages.transition(orgId, sibling.id, { from: ['pending'] }, { status: 'cancelled' });

        expect(await ctx.adapter.subscriptions.delete(orgId, subscription.id)).toBe(true);
        expect(await ctx.adapter.outboundMessages.get(orgId, message.id)).toBeNull();
        expect(await ctx.adapter.outboundMessages.get(orgId, sibling.id)).toMatchObject({ id: sibling.id, status: 'cancelled' });
        expect(await ctx.adapter.subscriptions.list(orgId, ALL)).toEqual({ items: [lookalike], total: 1 });

        const automationId = `${uniqueId('auto')}${text}`;
        const keyed = makeRunRecord({ org_id: orgId, automation_id: automationId, concurrency_key: text });
        const nearly = makeRunRecord({ org_id: orgId, automation_id: automationId, concurrency_key: `${text}\u0000` });
        await ctx.adapter.runs.insertMany([keyed, nearly]);
        expect(await ctx.adapter.runs.listLive(orgId, automationId, text)).toEqual([keyed]);
        expect(await ctx.adapter.runs.listLive(orgId, automationId, `${text}\u0000`)).toEqual([nearly]);
        expect(await ctx.adapter.runs.listLive(orgId, automationId, `${text}\uffff0`)).toEqual([]);
        expect(await ctx.adapter.runs.countCreatedSince(orgId, automationId, fixtureTime(0))).toBe(2);
      }
    });

    it('lookups, updates and deletes by unknown keys with them find nothing and never throw, in a transaction too', async () => {
      const subscription = makeSubscriptionRecord();
      const orgId = subscription.org_id;
      // Something under the org, so a lookup that ignored the odd key would find it.
      await ctx.adapter.subscriptions.insert(subscription);
      await ctx.adapter.outboundMessages.insertMany([makeOutboundMessageRecord({ org_id: orgId, subscription_id: subscription.id })]);
      await ctx.adapter.runs.insertMany([makeRunRecord({ org_id: orgId, concurrency_key: 'k' })]);
      for (const key of unknownKeys()) await expectNothingFound(ctx.adapter, key, orgId);
      await ctx.adapter.transaction(async (tx) => {
        for (const key of unknownKeys().slice(0, 4)) await expectNothingFound(tx, key, orgId);
      });
      expect(await ctx.adapter.subscriptions.get(orgId, subscription.id)).toEqual(subscription);
    });
  });
}
