/**
 * Conformance: `transaction(fn)`. Atomicity (all writes through `tx` land or none do), the
 * transaction reading its own writes, nobody else reading them before commit, and concurrent
 * transactions behaving as if run one after another.
 * @module
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { StorageAdapter, StorageRepositories } from '@agent-platform/core';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeAutomationRecord,
  makeConversationRecord,
  makeDeliveryRecord,
  makeGithubLinkRecord,
  makeProviderTokensRecord,
  makeRunRecord,
  makeSandboxRecord,
  makeSettingsRecord,
  makeStartTaskRecord,
  makeWebhookRecord,
  uniqueId,
} from '../fixtures.js';
import type { SuiteContext } from './context.js';
import { eventsFor, numbered } from './conversations.js';
import { makeDedupClaim } from '../fixtures.js';

/** Long enough for a read or write started elsewhere to reach the backend while a transaction is open. */
const HOLD_MS = 30;

/** A promise plus its resolver, to let a test act at a known point inside a transaction. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Starts a transaction that runs `write`, lets the test act, then throws. Resolves once `write`
 * is done; the returned `settled` rejects with `error`. Racing against the transaction keeps a
 * broken `write` from hanging the test.
 */
async function openFailingTransaction(
  adapter: StorageAdapter,
  write: (tx: StorageRepositories) => Promise<void>,
  error: Error,
): Promise<{ settled: Promise<unknown> }> {
  const written = signal();
  const settled = adapter.transaction(async (tx) => {
    await write(tx);
    written.resolve();
    await sleep(HOLD_MS);
    throw error;
  });
  await Promise.race([written.promise, settled]);
  return { settled };
}

export function describeTransactions(ctx: SuiteContext): void {
  describe('transaction', () => {
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
      expect(
        await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(delivery, { deliveryId: uniqueId('dlv'), now: fixtureTime(1) })),
      ).toBe(delivery.id);
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
        expect(await tx.conversations.update({ ...conversation, title: 'renamed', execution_status: 'error' })).toBe(true);
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

    it('reads outside a transaction see a conversation it deletes, with its events and start task, until it commits', async () => {
      const userId = uniqueId('user');
      const conversation = makeConversationRecord({ created_by_user_id: userId });
      await ctx.adapter.conversations.insert(conversation);
      const events = eventsFor(conversation.id, 2);
      await ctx.adapter.conversations.appendEvents(conversation.id, events);
      const task = makeStartTaskRecord({ created_by_user_id: userId, status: 'READY', app_conversation_id: conversation.id });
      await ctx.adapter.startTasks.insert(task);
      const error = new Error('rollback');
      const { settled } = await openFailingTransaction(
        ctx.adapter,
        async (tx) => {
          await tx.conversations.appendEvents(conversation.id, eventsFor(conversation.id, 1));
          expect(await tx.conversations.delete(conversation.id)).toBe(true);
        },
        error,
      );
      const seen = await Promise.all([
        ctx.adapter.conversations.get(conversation.id),
        ctx.adapter.conversations.listByUser(userId, { limit: 10 }),
        ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 }),
        ctx.adapter.startTasks.get(task.id),
      ]);
      await expect(settled).rejects.toBe(error);
      expect(seen).toEqual([conversation, { items: [conversation], nextPageId: null }, { items: numbered(events), nextPageId: null }, task]);
      expect(await ctx.adapter.conversations.delete(conversation.id)).toBe(true);
      expect(await ctx.adapter.conversations.get(conversation.id)).toBeNull();
      expect(await ctx.adapter.startTasks.get(task.id)).toBeNull();
    });

    it('reads inside a transaction see its own writes to sandboxes, conversations, events and start tasks', async () => {
      const userId = uniqueId('user');
      const sandbox = makeSandboxRecord({ created_by_user_id: userId });
      const conversation = makeConversationRecord({ created_by_user_id: userId });
      const task = makeStartTaskRecord({ created_by_user_id: userId });
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
        expect(await tx.conversations.listByUser(userId, { limit: 10 })).toEqual({ items: [conversation], nextPageId: null });
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
      expect(await ctx.adapter.conversations.get(conversation.id)).toEqual(conversation);
      expect((await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).items).toEqual(numbered(events));
      expect((await ctx.adapter.startTasks.get(task.id))?.status).toBe('READY');
    });

    it('reads outside a transaction see the committed sandboxes, conversations, events and start tasks while it changes them', async () => {
      const userId = uniqueId('user');
      const sandbox = makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(1) });
      const conversation = makeConversationRecord({ created_by_user_id: userId, created_at: fixtureTime(1) });
      const task = makeStartTaskRecord({ created_by_user_id: userId, created_at: fixtureTime(1) });
      const events = eventsFor(conversation.id, 2);
      await ctx.adapter.sandboxes.insert(sandbox);
      await ctx.adapter.conversations.insert(conversation);
      await ctx.adapter.conversations.appendEvents(conversation.id, events);
      await ctx.adapter.startTasks.insert(task);
      const newConversation = makeConversationRecord({ created_by_user_id: userId, created_at: fixtureTime(2) });

      const error = new Error('rollback');
      const { settled } = await openFailingTransaction(
        ctx.adapter,
        async (tx) => {
          await tx.sandboxes.insert(makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(2) }));
          await tx.sandboxes.delete(sandbox.id);
          await tx.conversations.update({ ...conversation, title: 'renamed' });
          await tx.conversations.appendEvents(conversation.id, eventsFor(conversation.id, 2));
          await tx.conversations.insert(newConversation);
          await tx.conversations.appendEvents(newConversation.id, eventsFor(newConversation.id, 1));
          await tx.startTasks.update({ ...task, status: 'ERROR' });
          await tx.startTasks.insert(makeStartTaskRecord({ created_by_user_id: userId, created_at: fixtureTime(2) }));
        },
        error,
      );
      const seen = await Promise.all([
        ctx.adapter.sandboxes.get(sandbox.id),
        ctx.adapter.sandboxes.listByUser(userId, { limit: 10 }),
        ctx.adapter.conversations.get(conversation.id),
        ctx.adapter.conversations.listByUser(userId, { limit: 10 }),
        ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 }),
        ctx.adapter.conversations.listEvents(newConversation.id, { limit: 10 }),
        ctx.adapter.startTasks.get(task.id),
        ctx.adapter.startTasks.listByUser(userId, { limit: 10 }),
      ]);
      await expect(settled).rejects.toBe(error);
      expect(seen).toEqual([
        sandbox,
        { items: [sandbox], nextPageId: null },
        conversation,
        { items: [conversation], nextPageId: null },
        { items: numbered(events), nextPageId: null },
        { items: [], nextPageId: null },
        task,
        { items: [task], nextPageId: null },
      ]);
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

    it('reads outside a transaction never see its uncommitted writes', async () => {
      const existing = makeSettingsRecord();
      await ctx.adapter.settings.put(existing);
      const key = makeApiKeyRecord();
      const webhook = makeWebhookRecord();
      const error = new Error('rollback');
      const { settled } = await openFailingTransaction(
        ctx.adapter,
        async (tx) => {
          await tx.settings.put({ ...existing, values: { ...existing.values, language: 'fr' } });
          await tx.apiKeys.insert(key);
          await tx.webhooks.insert(webhook);
        },
        error,
      );
      const seen = await Promise.all([
        ctx.adapter.settings.get(existing.user_id),
        ctx.adapter.apiKeys.get(key.id),
        ctx.adapter.apiKeys.getByHash(key.key_hash),
        ctx.adapter.apiKeys.listByUser(key.user_id),
        ctx.adapter.webhooks.getBySource(webhook.org_id, webhook.source),
        ctx.adapter.webhooks.list(webhook.org_id, { limit: 10, offset: 0 }),
      ]);
      await expect(settled).rejects.toBe(error);
      expect(seen).toEqual([existing, null, null, [], null, { items: [], total: 0 }]);
    });

    it('reads outside a transaction see the committed automations, runs, deliveries and links while it changes them', async () => {
      const orgId = uniqueId('org');
      const older = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(1) });
      const newer = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(2) });
      const run = makeRunRecord({ org_id: orgId, automation_id: older.id });
      const deliveries = [1, 2, 3].map((n) => makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(n) }));
      const link = makeGithubLinkRecord({ org_id: orgId });
      await ctx.adapter.automations.insert(older);
      await ctx.adapter.automations.insert(newer);
      await ctx.adapter.runs.insertMany([run]);
      for (const delivery of deliveries) await ctx.adapter.deliveries.insert(delivery);
      await ctx.adapter.githubLinks.put(link);

      const error = new Error('rollback');
      const { settled } = await openFailingTransaction(
        ctx.adapter,
        async (tx) => {
          await tx.automations.insert(makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(3) }));
          await tx.automations.update({ ...older, enabled: false });
          await tx.automations.delete(orgId, newer.id);
          await tx.automations.markTriggered(orgId, [older.id], fixtureTime(9));
          await tx.runs.transition(run.org_id, run.id, { from: ['PENDING', 'RUNNING'] }, { status: 'CANCELLED' });
          await tx.runs.insertMany([makeRunRecord({ org_id: orgId, automation_id: older.id, created_at: fixtureTime(5) })]);
          await tx.deliveries.insert(makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(4) }));
          await tx.deliveries.insert(makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(2) }));
          await tx.githubLinks.delete(link.kind, link.key, orgId);
          await tx.githubLinks.put(makeGithubLinkRecord({ org_id: orgId }));
        },
        error,
      );
      const seen = await Promise.all([
        ctx.adapter.automations.list(orgId, { limit: 10, offset: 0 }),
        ctx.adapter.automations.listEnabledBySource(orgId, 'github'),
        ctx.adapter.automations.get(orgId, older.id),
        ctx.adapter.runs.listByAutomation(orgId, older.id, { limit: 10, offset: 0 }),
        ctx.adapter.deliveries.list(orgId, { limit: 10, offset: 0 }),
        ctx.adapter.deliveries.list(orgId, { limit: 1, offset: 1 }),
        ctx.adapter.githubLinks.listByOrg(orgId),
        ctx.adapter.githubLinks.findOrgs([{ kind: link.kind, key: link.key }]),
      ]);
      await expect(settled).rejects.toBe(error);
      const [automations, enabled, ...rest] = seen;
      expect(automations).toEqual({ items: [newer, older], total: 2 });
      expect(enabled.map((record) => record.id).sort()).toEqual([newer.id, older.id].sort());
      const newestFirst = [...deliveries].reverse();
      expect(rest).toEqual([
        older,
        { items: [run], total: 1 },
        { items: newestFirst, total: 3 },
        { items: newestFirst.slice(1, 2), total: 3 },
        [link],
        [orgId],
      ]);
    });

    it('writes made outside a transaction while it runs survive its rollback', async () => {
      const shared = makeSettingsRecord({ values: { language: 'en' } });
      await ctx.adapter.settings.put(shared);
      const insideKey = makeApiKeyRecord();
      const outsideKey = makeApiKeyRecord();
      const outsideSettings = { ...shared, values: { ...shared.values, language: 'de' } };
      const error = new Error('rollback');
      const { settled } = await openFailingTransaction(
        ctx.adapter,
        async (tx) => {
          await tx.settings.put({ ...shared, values: { ...shared.values, language: 'fr' } });
          await tx.apiKeys.insert(insideKey);
        },
        error,
      );
      const outside = Promise.all([
        ctx.adapter.apiKeys.insert(outsideKey),
        ctx.adapter.settings.put(outsideSettings),
      ]);
      await expect(settled).rejects.toBe(error);
      await outside;
      expect(await ctx.adapter.apiKeys.get(insideKey.id)).toBeNull();
      expect(await ctx.adapter.apiKeys.get(outsideKey.id)).toEqual(outsideKey);
      expect(await ctx.adapter.settings.get(shared.user_id)).toEqual(outsideSettings);
    });

    it('concurrent read-increment-write transactions all land', async () => {
      const record = makeSettingsRecord({ values: { max_iterations: 0 } });
      await ctx.adapter.settings.put(record);
      await Promise.all(
        Array.from({ length: ctx.concurrency }, () =>
          ctx.adapter.transaction(async (tx) => {
            const current = await tx.settings.get(record.user_id);
            if (!current) throw new Error('settings record vanished');
            // Yield so a non-serializing adapter would interleave the reads and lose updates.
            await nextTurn();
            const count = current.values.max_iterations ?? 0;
            await tx.settings.put({ ...current, values: { ...current.values, max_iterations: count + 1 } });
          }),
        ),
      );
      expect((await ctx.adapter.settings.get(record.user_id))?.values.max_iterations).toBe(ctx.concurrency);
    });

    it('of concurrent transactions inserting the same key, one commits and the others conflict', async () => {
      const record = makeApiKeyRecord();
      const outcomes = await Promise.allSettled(
        Array.from({ length: ctx.concurrency }, (_, n) =>
          ctx.adapter.transaction(async (tx) => {
            await nextTurn();
            await tx.apiKeys.insert({ ...record, name: `attempt ${n}` });
            return n;
          }),
        ),
      );
      const committed = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      const reasons = outcomes.flatMap((outcome): unknown[] => (outcome.status === 'rejected' ? [outcome.reason] : []));
      expect(committed).toHaveLength(1);
      for (const reason of reasons) expect(reason).toBeInstanceOf(StorageConflictError);
      expect((await ctx.adapter.apiKeys.get(record.id))?.name).toBe(`attempt ${committed[0]}`);
    });

    it("a transaction never sees a concurrent transaction's rolled-back writes", async () => {
      const record = makeApiKeyRecord();
      const error = new Error('rollback');
      const failing = ctx.adapter.transaction(async (tx) => {
        await tx.apiKeys.insert(record);
        await sleep(HOLD_MS);
        throw error;
      });
      const observer = ctx.adapter.transaction(async (tx) => {
        const byId = await tx.apiKeys.get(record.id);
        const byHash = await tx.apiKeys.getByHash(record.key_hash);
        return [byId, byHash];
      });
      await expect(failing).rejects.toBe(error);
      expect(await observer).toEqual([null, null]);
    });

    it('a failing transaction does not undo a concurrent one that commits', async () => {
      const orgId = uniqueId('org');
      const failed = makeWebhookRecord({ org_id: orgId, created_at: fixtureTime(1) });
      const committed = makeWebhookRecord({ org_id: orgId, created_at: fixtureTime(2) });
      const error = new Error('rollback');
      const outcomes = await Promise.allSettled([
        ctx.adapter.transaction(async (tx) => {
          await tx.webhooks.insert(failed);
          await nextTurn();
          throw error;
        }),
        ctx.adapter.transaction(async (tx) => {
          await tx.webhooks.insert(committed);
          await nextTurn();
        }),
      ]);
      expect(outcomes).toEqual([
        { status: 'rejected', reason: error },
        { status: 'fulfilled', value: undefined },
      ]);
      expect(await ctx.adapter.webhooks.list(orgId, { limit: 10, offset: 0 })).toEqual({
        items: [committed],
        total: 1,
      });
    });
  });
}
