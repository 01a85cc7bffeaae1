/**
 * Conformance: nobody outside a transaction sees its writes before it commits. Reads outside it
 * see the committed state while it runs (its deletes included), and writes outside it are not
 * undone by its rollback.
 * @module
 */
import { expect, it } from 'vitest';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeAutomationRecord,
  makeConversationRecord,
  makeDeliveryRecord,
  makeGithubLinkRecord,
  makeRunRecord,
  makeSandboxRecord,
  makeSettingsRecord,
  makeStartTaskRecord,
  makeWebhookRecord,
  uniqueId,
} from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { eventsFor, numbered } from './conversations.js';
import { openFailingTransaction } from './held-transaction.js';

/** Reads and writes outside a running transaction, which neither see its writes nor lose their own. */
export function describeTransactionIsolation(ctx: SuiteContext): void {
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
        await tx.conversations.patch(conversation.id, { title: 'renamed' });
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
    expect(rest).toEqual([older, { items: [run], total: 1 }, { items: newestFirst, total: 3 }, { items: newestFirst.slice(1, 2), total: 3 }, [link], [orgId]]);
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
    const outside = Promise.all([ctx.adapter.apiKeys.insert(outsideKey), ctx.adapter.settings.put(outsideSettings)]);
    await expect(settled).rejects.toBe(error);
    await outside;
    expect(await ctx.adapter.apiKeys.get(insideKey.id)).toBeNull();
    expect(await ctx.adapter.apiKeys.get(outsideKey.id)).toEqual(outsideKey);
    expect(await ctx.adapter.settings.get(shared.user_id)).toEqual(outsideSettings);
  });
}
