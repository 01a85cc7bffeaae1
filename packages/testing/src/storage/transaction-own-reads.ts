/**
 * Conformance: a transaction reads its own writes. Every read through `tx` (gets, lists, pages,
 * lookups by secondary keys) sees what `tx` wrote before it, committed or not.
 * @module
 */
import { expect, it } from 'vitest';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeAutomationRecord,
  makeConversationRecord,
  makeDedupClaim,
  makeDeliveryRecord,
  makeGithubLinkRecord,
  makeProviderTokensRecord,
  makeRunRecord,
  makeSandboxRecord,
  makeSettingsRecord,
  makeStartTaskRecord,
  makeWebhookRecord,
  uniqueId,
} from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { eventsFor, numbered } from './conversations.js';

/** Reads through `tx` see the transaction's uncommitted writes. */
export function describeTransactionOwnReads(ctx: SuiteContext): void {
  it('reads inside a transaction see its own writes to sandboxes, conversations, events and start tasks', async () => {
    const userId = uniqueId('user');
    const sandbox = makeSandboxRecord({ created_by_user_id: userId });
    const conversation = makeConversationRecord({ created_by_user_id: userId });
    const task = makeStartTaskRecord({ created_by_user_id: userId });
    const renamed = { ...conversation, title: 'renamed', version: 1 };
    const events = eventsFor(conversation.id, 3);
    await ctx.adapter.transaction(async (tx) => {
      await tx.sandboxes.insert(sandbox);
      const paused = { ...sandbox, status: 'PAUSED' as const };
      expect(await tx.sandboxes.update(paused)).toBe(true);
      expect(await tx.sandboxes.get(sandbox.id)).toEqual(paused);
      expect(await tx.sandboxes.listByUser(userId, { limit: 10 })).toEqual({ items: [paused], nextPageId: null });
      expect(await tx.sandboxes.delete(sandbox.id)).toBe(true);
      expect(await tx.sandboxes.get(sandbox.id)).toBeNull();

      await tx.conversations.insert(conversation);
      expect(await tx.conversations.get(conversation.id)).toEqual(conversation);
      expect(await tx.conversations.patch(conversation.id, { title: 'renamed' }, { version: 0 })).toEqual(renamed);
      expect(await tx.conversations.get(conversation.id)).toEqual(renamed);
      expect(await tx.conversations.listByUser(userId, { limit: 10 })).toEqual({ items: [renamed], nextPageId: null });
      await tx.conversations.appendEvents(conversation.id, events.slice(0, 2));
      await tx.conversations.appendEvents(conversation.id, events.slice(2));
      const first = await tx.conversations.listEvents(conversation.id, { limit: 2 });
      expect(first.items).toEqual(numbered(events).slice(0, 2));
      expect(first.nextPageId).not.toBeNull();
      expect(await tx.conversations.listEvents(conversation.id, { limit: 2, pageId: first.nextPageId ?? '' })).toEqual({
        items: numbered(events).slice(2),
        nextPageId: null,
      });

      await tx.startTasks.insert(task);
      const ready = { ...task, status: 'READY' as const, app_conversation_id: conversation.id };
      expect(await tx.startTasks.update(ready)).toBe(true);
      expect(await tx.startTasks.listByUser(userId, { limit: 10 })).toEqual({ items: [ready], nextPageId: null });
    });
    expect(await ctx.adapter.sandboxes.get(sandbox.id)).toBeNull();
    expect(await ctx.adapter.conversations.get(conversation.id)).toEqual(renamed);
    expect((await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).items).toEqual(numbered(events));
    expect((await ctx.adapter.startTasks.get(task.id))?.status).toBe('READY');
  });

  it('reads inside a transaction see its own writes', async () => {
    const settings = makeSettingsRecord();
    const tokens = makeProviderTokensRecord();
    const key = makeApiKeyRecord();
    const webhook = makeWebhookRecord();
    await ctx.adapter.providerTokens.put(tokens);
    await ctx.adapter.transaction(async (tx) => {
      await tx.settings.put(settings);
      expect(await tx.settings.get(settings.user_id)).toEqual(settings);

      await tx.providerTokens.delete(tokens.user_id);
      expect(await tx.providerTokens.get(tokens.user_id)).toBeNull();

      await tx.apiKeys.insert(key);
      await tx.apiKeys.touch(key.id, fixtureTime(7));
      const touched = { ...key, last_used_at: fixtureTime(7) };
      expect(await tx.apiKeys.get(key.id)).toEqual(touched);
      expect(await tx.apiKeys.getByHash(key.key_hash)).toEqual(touched);
      expect(await tx.apiKeys.listByUser(key.user_id)).toEqual([touched]);

      await tx.webhooks.insert(webhook);
      expect(await tx.webhooks.getBySource(webhook.org_id, webhook.source)).toEqual(webhook);
      const renamed = { ...webhook, name: 'Renamed' };
      expect(await tx.webhooks.update(renamed)).toBe(true);
      expect(await tx.webhooks.list(webhook.org_id, { limit: 10, offset: 0 })).toEqual({ items: [renamed], total: 1 });
      expect(await tx.webhooks.delete(webhook.org_id, webhook.id)).toBe(true);
      expect(await tx.webhooks.get(webhook.org_id, webhook.id)).toBeNull();
    });
    expect(await ctx.adapter.providerTokens.get(tokens.user_id)).toBeNull();
    expect(await ctx.adapter.webhooks.get(webhook.org_id, webhook.id)).toBeNull();
    expect(await ctx.adapter.apiKeys.get(key.id)).toEqual({ ...key, last_used_at: fixtureTime(7) });
  });

  it('reads inside a transaction see its own writes to automations, runs, deliveries and links', async () => {
    const automation = makeAutomationRecord();
    const orgId = automation.org_id;
    const run = makeRunRecord({ org_id: orgId, automation_id: automation.id });
    const delivery = makeDeliveryRecord({ org_id: orgId });
    const link = makeGithubLinkRecord({ org_id: orgId });
    await ctx.adapter.transaction(async (tx) => {
      await tx.automations.insert(automation);
      expect(await tx.automations.listEnabledBySource(orgId, 'github')).toEqual([automation]);
      await tx.automations.markTriggered(orgId, [automation.id], fixtureTime(7));
      const triggered = { ...automation, last_triggered_at: fixtureTime(7) };
      expect(await tx.automations.get(orgId, automation.id)).toEqual(triggered);
      expect(await tx.automations.update({ ...triggered, enabled: false })).toBe(true);
      expect(await tx.automations.listEnabledBySource(orgId, 'github')).toEqual([]);
      expect(await tx.automations.list(orgId, { limit: 10, offset: 0 })).toEqual({
        items: [{ ...triggered, enabled: false }],
        total: 1,
      });

      await tx.runs.insertMany([run]);
      const running = { ...run, status: 'RUNNING' as const };
      expect(await tx.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, { status: 'RUNNING' })).toEqual(running);
      expect(await tx.runs.listByAutomation(orgId, automation.id, { limit: 10, offset: 0 })).toEqual({
        items: [running],
        total: 1,
      });

      expect(await tx.deliveries.claimDedupKey(makeDedupClaim(delivery))).toBeNull();
      expect(await tx.deliveries.claimDedupKey(makeDedupClaim(delivery, { deliveryId: uniqueId('dlv') }))).toBe(delivery.id);
      await tx.deliveries.insert(delivery);
      expect(await tx.deliveries.get(orgId, delivery.id)).toEqual(delivery);
      expect(await tx.deliveries.list(orgId, { limit: 10, offset: 0, status: 'matched' })).toEqual({
        items: [delivery],
        total: 1,
      });

      await tx.githubLinks.put(link);
      expect(await tx.githubLinks.findOrgs([{ kind: link.kind, key: link.key }])).toEqual([orgId]);
      expect(await tx.githubLinks.delete(link.kind, link.key, orgId)).toBe(true);
      expect(await tx.githubLinks.listByOrg(orgId)).toEqual([]);
    });
    expect((await ctx.adapter.automations.get(orgId, automation.id))?.enabled).toBe(false);
    expect((await ctx.adapter.runs.get(orgId, run.id))?.status).toBe('RUNNING');
    expect(await ctx.adapter.deliveries.get(orgId, delivery.id)).toEqual(delivery);
    expect(await ctx.adapter.githubLinks.listByOrg(orgId)).toEqual([]);
  });
}
