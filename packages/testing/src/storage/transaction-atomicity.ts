/**
 * Conformance: a transaction is atomic. What `fn` writes through `tx`, to any repository, lands
 * when it resolves; when it throws (a conflict included), every one of those writes is undone,
 * deletes and appended conversation events too, and the transaction rejects with that error.
 * @module
 */
import { expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
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

/** Commit and rollback: all of a transaction's writes land, or none do. */
export function describeTransactionAtomicity(ctx: SuiteContext): void {
  it("resolves with fn's value and commits writes to every repository", async () => {
    const settings = makeSettingsRecord();
    const tokens = makeProviderTokensRecord();
    const key = makeApiKeyRecord();
    const webhook = makeWebhookRecord();
    const result = await ctx.adapter.transaction(async (tx) => {
      await tx.settings.put(settings);
      await tx.providerTokens.put(tokens);
      await tx.apiKeys.insert(key);
      await tx.webhooks.insert(webhook);
      return { ok: 42 };
    });
    expect(result).toEqual({ ok: 42 });
    expect(await ctx.adapter.settings.get(settings.user_id)).toEqual(settings);
    expect(await ctx.adapter.providerTokens.get(tokens.user_id)).toEqual(tokens);
    expect(await ctx.adapter.apiKeys.getByHash(key.key_hash)).toEqual(key);
    expect(await ctx.adapter.webhooks.getBySource(webhook.org_id, webhook.source)).toEqual(webhook);
  });

  it('a throw rolls back every write made through tx and rejects with the same error', async () => {
    const orgId = uniqueId('org');
    const userId = uniqueId('user');
    const settings = makeSettingsRecord({ user_id: userId });
    const tokens = makeProviderTokensRecord({ user_id: userId });
    const touchedKey = makeApiKeyRecord({ user_id: userId, org_id: orgId, created_at: fixtureTime(1) });
    const deletedKey = makeApiKeyRecord({ user_id: userId, org_id: orgId, created_at: fixtureTime(2) });
    const updatedHook = makeWebhookRecord({ org_id: orgId, source: 'updated', created_at: fixtureTime(1) });
    const deletedHook = makeWebhookRecord({ org_id: orgId, source: 'deleted', created_at: fixtureTime(2) });
    await ctx.adapter.settings.put(settings);
    await ctx.adapter.providerTokens.put(tokens);
    await ctx.adapter.apiKeys.insert(touchedKey);
    await ctx.adapter.apiKeys.insert(deletedKey);
    await ctx.adapter.webhooks.insert(updatedHook);
    await ctx.adapter.webhooks.insert(deletedHook);

    const newUser = makeSettingsRecord();
    const newTokens = makeProviderTokensRecord();
    const newKey = makeApiKeyRecord({ user_id: userId, org_id: orgId, created_at: fixtureTime(3) });
    const newHook = makeWebhookRecord({ org_id: orgId, source: 'inserted', created_at: fixtureTime(3) });
    class Boom extends Error {}
    const error = new Boom('boom');

    const outcome = ctx.adapter.transaction(async (tx) => {
      await tx.settings.put({ ...settings, values: { ...settings.values, language: 'fr' }, secrets: {} });
      await tx.settings.put(newUser);
      await tx.providerTokens.delete(userId);
      await tx.providerTokens.put(newTokens);
      await tx.apiKeys.insert(newKey);
      await tx.apiKeys.touch(touchedKey.id, fixtureTime(999));
      expect(await tx.apiKeys.delete(deletedKey.id)).toBe(true);
      await tx.webhooks.insert(newHook);
      expect(await tx.webhooks.update({ ...updatedHook, source: 'renamed', enabled: false })).toBe(true);
      expect(await tx.webhooks.delete(orgId, deletedHook.id)).toBe(true);
      throw error;
    });
    await expect(outcome).rejects.toBe(error);

    expect(await ctx.adapter.settings.get(userId)).toEqual(settings);
    expect(await ctx.adapter.settings.get(newUser.user_id)).toBeNull();
    expect(await ctx.adapter.providerTokens.get(userId)).toEqual(tokens);
    expect(await ctx.adapter.providerTokens.get(newTokens.user_id)).toBeNull();
    expect(await ctx.adapter.apiKeys.listByUser(userId)).toEqual([touchedKey, deletedKey]);
    expect(await ctx.adapter.apiKeys.get(newKey.id)).toBeNull();
    expect(await ctx.adapter.apiKeys.getByHash(newKey.key_hash)).toBeNull();
    expect(await ctx.adapter.apiKeys.getByHash(deletedKey.key_hash)).toEqual(deletedKey);
    expect(await ctx.adapter.webhooks.list(orgId, { limit: 10, offset: 0 })).toEqual({
      items: [updatedHook, deletedHook],
      total: 2,
    });
    expect(await ctx.adapter.webhooks.getBySource(orgId, 'updated')).toEqual(updatedHook);
    expect(await ctx.adapter.webhooks.getBySource(orgId, 'renamed')).toBeNull();
    expect(await ctx.adapter.webhooks.getBySource(orgId, 'inserted')).toBeNull();
    expect(await ctx.adapter.webhooks.getBySource(orgId, 'deleted')).toEqual(deletedHook);
  });

  it('commits an ingest-shaped write: claim, delivery, runs and last trigger together', async () => {
    const automation = makeAutomationRecord();
    const orgId = automation.org_id;
    await ctx.adapter.automations.insert(automation);
    const delivery = makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(9) });
    const run = makeRunRecord({ org_id: orgId, automation_id: automation.id, delivery_id: delivery.id });
    const link = makeGithubLinkRecord({ org_id: orgId });
    const result = await ctx.adapter.transaction(async (tx) => {
      const holder = await tx.deliveries.claimDedupKey(makeDedupClaim(delivery));
      await tx.deliveries.insert(delivery);
      await tx.runs.insertMany([run]);
      await tx.automations.markTriggered(orgId, [automation.id], delivery.received_at);
      await tx.githubLinks.put(link);
      return holder;
    });
    expect(result).toBeNull();
    expect(await ctx.adapter.deliveries.get(orgId, delivery.id)).toEqual(delivery);
    expect(await ctx.adapter.runs.get(orgId, run.id)).toEqual(run);
    expect((await ctx.adapter.automations.get(orgId, automation.id))?.last_triggered_at).toBe(fixtureTime(9));
    expect(await ctx.adapter.githubLinks.findOrgs([{ kind: link.kind, key: link.key }])).toEqual([orgId]);
    expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(delivery, { deliveryId: uniqueId('dlv') }))).toBe(delivery.id);
  });

  it('a throw rolls back every write to automations, runs, deliveries, dedup claims and GitHub links', async () => {
    const orgId = uniqueId('org');
    const kept = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(1) });
    const deleted = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(2) });
    const triggered = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(0), trigger: { source: 'stripe' } });
    const run = makeRunRecord({ org_id: orgId, automation_id: kept.id, created_at: fixtureTime(1) });
    const delivery = makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(1) });
    const link = makeGithubLinkRecord({ org_id: orgId, created_at: fixtureTime(1) });
    await ctx.adapter.automations.insert(kept);
    await ctx.adapter.automations.insert(deleted);
    await ctx.adapter.automations.insert(triggered);
    await ctx.adapter.runs.insertMany([run]);
    await ctx.adapter.deliveries.insert(delivery);
    expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(delivery))).toBeNull();
    await ctx.adapter.githubLinks.put(link);

    const newAutomation = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(3) });
    const newRuns = [0, 1].map(() => makeRunRecord({ org_id: orgId, automation_id: kept.id, created_at: fixtureTime(2) }));
    const newDelivery = makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(2) });
    const newLink = makeGithubLinkRecord({ org_id: orgId, kind: 'installation', created_at: fixtureTime(2) });
    const error = new Error('boom');

    const outcome = ctx.adapter.transaction(async (tx) => {
      await tx.automations.insert(newAutomation);
      const moved = { ...kept, enabled: false, trigger: { ...kept.trigger, source: 'stripe' } };
      expect(await tx.automations.update(moved)).toBe(true);
      await tx.automations.markTriggered(orgId, [kept.id, newAutomation.id, triggered.id], fixtureTime(50));
      expect(await tx.automations.delete(orgId, deleted.id)).toBe(true);
      await tx.runs.insertMany(newRuns);
      expect(await tx.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, { status: 'RUNNING', started_at: fixtureTime(5) })).not.toBeNull();
      expect(await tx.deliveries.claimDedupKey(makeDedupClaim(newDelivery))).toBeNull();
      expect(await tx.deliveries.claimDedupKey(makeDedupClaim(delivery, { deliveryId: newDelivery.id }))).toBe(delivery.id);
      await tx.deliveries.insert(newDelivery);
      await tx.githubLinks.put(newLink);
      expect(await tx.githubLinks.delete(link.kind, link.key, orgId)).toBe(true);
      throw error;
    });
    await expect(outcome).rejects.toBe(error);

    expect(await ctx.adapter.automations.list(orgId, { limit: 10, offset: 0 })).toEqual({
      items: [deleted, kept, triggered],
      total: 3,
    });
    expect(await ctx.adapter.automations.get(orgId, newAutomation.id)).toBeNull();
    const enabled = await ctx.adapter.automations.listEnabledBySource(orgId, 'github');
    expect(enabled.map((record) => record.id).sort()).toEqual([deleted.id, kept.id].sort());
    expect(await ctx.adapter.automations.listEnabledBySource(orgId, 'stripe')).toEqual([triggered]);
    expect(await ctx.adapter.runs.listByAutomation(orgId, kept.id, { limit: 10, offset: 0 })).toEqual({
      items: [run],
      total: 1,
    });
    for (const newRun of newRuns) expect(await ctx.adapter.runs.get(orgId, newRun.id)).toBeNull();
    expect(await ctx.adapter.deliveries.list(orgId, { limit: 10, offset: 0 })).toEqual({ items: [delivery], total: 1 });
    expect(await ctx.adapter.deliveries.get(orgId, newDelivery.id)).toBeNull();
    expect(await ctx.adapter.githubLinks.listByOrg(orgId)).toEqual([link]);
    expect(await ctx.adapter.githubLinks.findOrgs([{ kind: newLink.kind, key: newLink.key }])).toEqual([]);
    // The claim made inside is released; the one made before still holds.
    expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(newDelivery, { now: fixtureTime(1) }))).toBeNull();
    expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(delivery, { deliveryId: uniqueId('dlv'), now: fixtureTime(1) }))).toBe(delivery.id);
  });

  it('a throw rolls back every write to sandboxes, conversations, their events and start tasks', async () => {
    const userId = uniqueId('user');
    const updatedSandbox = makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(1) });
    const deletedSandbox = makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(2) });
    const conversation = makeConversationRecord({ created_by_user_id: userId, created_at: fixtureTime(1) });
    const task = makeStartTaskRecord({ created_by_user_id: userId, created_at: fixtureTime(1) });
    await ctx.adapter.sandboxes.insert(updatedSandbox);
    await ctx.adapter.sandboxes.insert(deletedSandbox);
    await ctx.adapter.conversations.insert(conversation);
    const committedEvents = eventsFor(conversation.id, 2);
    await ctx.adapter.conversations.appendEvents(conversation.id, committedEvents);
    await ctx.adapter.startTasks.insert(task);

    const newSandbox = makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(3) });
    const newConversation = makeConversationRecord({ created_by_user_id: userId, created_at: fixtureTime(3) });
    const newTask = makeStartTaskRecord({ created_by_user_id: userId, created_at: fixtureTime(3) });
    const error = new Error('boom');

    const outcome = ctx.adapter.transaction(async (tx) => {
      await tx.sandboxes.insert(newSandbox);
      expect(await tx.sandboxes.update({ ...updatedSandbox, status: 'PAUSED', created_at: fixtureTime(9) })).toBe(true);
      expect(await tx.sandboxes.delete(deletedSandbox.id)).toBe(true);
      await tx.conversations.insert(newConversation);
      await tx.conversations.appendEvents(newConversation.id, eventsFor(newConversation.id, 2));
      expect(await tx.conversations.patch(conversation.id, { title: 'renamed', execution_status: 'error' }, { version: 0 })).toMatchObject({ version: 1 });
      const appended = await tx.conversations.appendEvents(conversation.id, eventsFor(conversation.id, 3));
      expect(appended.map((event) => event.seq)).toEqual([2, 3, 4]);
      await tx.startTasks.insert(newTask);
      expect(await tx.startTasks.update({ ...task, status: 'ERROR', detail: 'boom' })).toBe(true);
      throw error;
    });
    await expect(outcome).rejects.toBe(error);

    expect(await ctx.adapter.sandboxes.get(newSandbox.id)).toBeNull();
    expect(await ctx.adapter.sandboxes.get(updatedSandbox.id)).toEqual(updatedSandbox);
    expect(await ctx.adapter.sandboxes.get(deletedSandbox.id)).toEqual(deletedSandbox);
    expect(await ctx.adapter.sandboxes.listByUser(userId, { limit: 10 })).toEqual({
      items: [deletedSandbox, updatedSandbox],
      nextPageId: null,
    });
    expect(await ctx.adapter.conversations.get(newConversation.id)).toBeNull();
    expect(await ctx.adapter.conversations.get(conversation.id)).toEqual(conversation);
    expect(await ctx.adapter.conversations.listByUser(userId, { limit: 10 })).toEqual({
      items: [conversation],
      nextPageId: null,
    });
    expect(await ctx.adapter.conversations.listEvents(newConversation.id, { limit: 10 })).toEqual({
      items: [],
      nextPageId: null,
    });
    expect(await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).toEqual({
      items: numbered(committedEvents),
      nextPageId: null,
    });
    expect(await ctx.adapter.startTasks.get(newTask.id)).toBeNull();
    expect(await ctx.adapter.startTasks.get(task.id)).toEqual(task);
    expect(await ctx.adapter.startTasks.listByUser(userId, { limit: 10 })).toEqual({ items: [task], nextPageId: null });
    // The rolled-back seqs are free again, and the rolled-back conversation may be inserted anew.
    const next = eventsFor(conversation.id, 1);
    expect(await ctx.adapter.conversations.appendEvents(conversation.id, next)).toEqual(numbered(next, 2));
    await ctx.adapter.conversations.insert(newConversation);
    const fresh = eventsFor(newConversation.id, 1);
    expect(await ctx.adapter.conversations.appendEvents(newConversation.id, fresh)).toEqual(numbered(fresh));
  });

  it('a throw rolls back a conversation delete: the conversation, its events and its start task come back', async () => {
    const userId = uniqueId('user');
    const conversation = makeConversationRecord({ created_by_user_id: userId });
    await ctx.adapter.conversations.insert(conversation);
    const events = eventsFor(conversation.id, 3);
    await ctx.adapter.conversations.appendEvents(conversation.id, events.slice(0, 2));
    const task = makeStartTaskRecord({ created_by_user_id: userId, status: 'READY', app_conversation_id: conversation.id });
    await ctx.adapter.startTasks.insert(task);
    const error = new Error('boom');

    const outcome = ctx.adapter.transaction(async (tx) => {
      // Appended, then deleted, then begun anew: all of it goes.
      await tx.conversations.appendEvents(conversation.id, events.slice(2));
      expect(await tx.conversations.delete(conversation.id)).toBe(true);
      expect(await tx.conversations.get(conversation.id)).toBeNull();
      expect(await tx.conversations.listEvents(conversation.id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
      expect(await tx.startTasks.get(task.id)).toBeNull();
      await tx.conversations.insert({ ...conversation, title: 'again' });
      await tx.conversations.appendEvents(conversation.id, eventsFor(conversation.id, 1));
      throw error;
    });
    await expect(outcome).rejects.toBe(error);

    expect(await ctx.adapter.conversations.get(conversation.id)).toEqual(conversation);
    expect(await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).toEqual({ items: numbered(events.slice(0, 2)), nextPageId: null });
    expect(await ctx.adapter.startTasks.get(task.id)).toEqual(task);
    const next = eventsFor(conversation.id, 1);
    expect(await ctx.adapter.conversations.appendEvents(conversation.id, next)).toEqual(numbered(next, 2));
  });

  it('a conflict inside a transaction rejects it and rolls back its earlier writes', async () => {
    const existing = makeApiKeyRecord();
    await ctx.adapter.apiKeys.insert(existing);
    const settings = makeSettingsRecord();
    const outcome = ctx.adapter.transaction(async (tx) => {
      await tx.settings.put(settings);
      await tx.apiKeys.insert(makeApiKeyRecord({ key_hash: existing.key_hash }));
    });
    await expect(outcome).rejects.toBeInstanceOf(StorageConflictError);
    expect(await ctx.adapter.settings.get(settings.user_id)).toBeNull();
    expect(await ctx.adapter.apiKeys.getByHash(existing.key_hash)).toEqual(existing);
  });
}
