/**
 * Conformance: keys with U+0000 or a lone surrogate find exactly the record stored under them —
 * never a look-alike — and a lookup, update or delete by a key no record has finds nothing and
 * never throws, outside a transaction and inside one (which goes on and commits).
 * @module
 */
import { expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { DeliveryStatus, RunStatus, StorageRepositories } from '@agent-platform/core';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeAutomationRecord,
  makeConversationEvent,
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
} from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { HOSTILE_TEXTS, unknownKeys } from './hostile-inputs.js';
import { collectPages } from './paging.js';

/** Every lookup, update and delete by `key` in each position it can take; each must find nothing. */
async function expectNothingFound(repos: StorageRepositories, key: string, orgId: string): Promise<void> {
  expect(await repos.settings.get(key)).toBeNull();
  expect(await repos.providerTokens.get(key)).toBeNull();
  await repos.providerTokens.delete(key);

  expect(await repos.apiKeys.get(key)).toBeNull();
  expect(await repos.apiKeys.getByHash(key)).toBeNull();
  expect(await repos.apiKeys.listByUser(key)).toEqual([]);
  await repos.apiKeys.touch(key, fixtureTime(1));
  expect(await repos.apiKeys.delete(key)).toBe(false);

  expect(await repos.webhooks.get(orgId, key)).toBeNull();
  expect(await repos.webhooks.get(key, key)).toBeNull();
  expect(await repos.webhooks.getBySource(key, 'github')).toBeNull();
  expect(await repos.webhooks.getBySource(orgId, key)).toBeNull();
  expect(await repos.webhooks.list(key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.webhooks.update(makeWebhookRecord({ id: key, org_id: orgId }))).toBe(false);
  expect(await repos.webhooks.update(makeWebhookRecord({ org_id: key, source: key }))).toBe(false);
  expect(await repos.webhooks.delete(orgId, key)).toBe(false);
  expect(await repos.webhooks.delete(key, key)).toBe(false);

  expect(await repos.automations.get(orgId, key)).toBeNull();
  expect(await repos.automations.get(key, key)).toBeNull();
  expect(await repos.automations.list(key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.automations.listEnabledBySource(key, 'github')).toEqual([]);
  expect(await repos.automations.listEnabledBySource(orgId, key)).toEqual([]);
  expect(await repos.automations.update(makeAutomationRecord({ id: key, org_id: orgId }))).toBe(false);
  await repos.automations.markTriggered(orgId, [key], fixtureTime(1));
  await repos.automations.markTriggered(key, [key, uniqueId('auto')], fixtureTime(1));
  expect(await repos.automations.delete(orgId, key)).toBe(false);

  expect(await repos.runs.get(orgId, key)).toBeNull();
  expect(await repos.runs.get(key, key)).toBeNull();
  expect(await repos.runs.listByAutomation(orgId, key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.runs.listByAutomation(key, key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.runs.listByStatus(key as RunStatus, 10)).toEqual([]);
  expect(await repos.runs.transition(orgId, key, { from: ['PENDING', 'RUNNING'] }, { error_detail: key })).toBeNull();
  expect(await repos.runs.transition(key, key, { from: ['RUNNING'], leaseOwner: key }, { status: 'PENDING' })).toBeNull();
  expect(await repos.runs.transition(orgId, key, { from: [key as RunStatus] }, { status: key as RunStatus })).toBeNull();

  expect(await repos.deliveries.get(orgId, key)).toBeNull();
  expect(await repos.deliveries.get(key, key)).toBeNull();
  expect(await repos.deliveries.list(key, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
  expect(await repos.deliveries.list(orgId, { limit: 10, offset: 0, source: key })).toEqual({ items: [], total: 0 });
  expect(await repos.deliveries.list(orgId, { limit: 10, offset: 0, status: key as DeliveryStatus })).toEqual({ items: [], total: 0 });

  expect(await repos.githubLinks.delete('account', key, orgId)).toBe(false);
  expect(await repos.githubLinks.delete('installation', key, key)).toBe(false);
  expect(
    await repos.githubLinks.findOrgs([
      { kind: 'account', key },
      { kind: 'installation', key },
    ]),
  ).toEqual([]);
  expect(await repos.githubLinks.listByOrg(key)).toEqual([]);

  expect(await repos.sandboxes.get(key)).toBeNull();
  expect(await repos.sandboxes.listByUser(key, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  expect(await repos.sandboxes.update(makeSandboxRecord({ id: key }))).toBe(false);
  expect(await repos.sandboxes.delete(key)).toBe(false);

  expect(await repos.conversations.get(key)).toBeNull();
  expect(await repos.conversations.listByUser(key, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  expect(await repos.conversations.patch(key, { title: 'renamed' })).toBeNull();
  expect(await repos.conversations.patch(key, { title: 'renamed' }, { version: 0 })).toBeNull();
  expect(await repos.conversations.listEvents(key, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  const { seq: _seq, ...event } = makeConversationEvent({ conversation_id: key });
  await expect(repos.conversations.appendEvents(key, [event])).rejects.toBeInstanceOf(StorageConflictError);

  expect(await repos.startTasks.get(key)).toBeNull();
  expect(await repos.startTasks.listByUser(key, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  expect(await repos.startTasks.update(makeStartTaskRecord({ id: key }))).toBe(false);
}

/** Lookups, updates and deletes by hostile keys: exactly the record stored under them, or nothing. */
export function describeHostileKeys(ctx: SuiteContext): void {
  it('a record stored under keys with lone surrogates or U+0000 is found by exactly those keys, and by no look-alike', async () => {
    for (const text of HOSTILE_TEXTS) {
      const userId = `${uniqueId('user')}${text}`;
      const settings = makeSettingsRecord({ user_id: userId });
      // A key the escaping of another could collide with: U+0000 against U+FFFF "0", and so on.
      const lookalike = makeSettingsRecord({ user_id: `${userId}\uffff0` });
      const nul = makeSettingsRecord({ user_id: `${userId}\u0000` });
      for (const record of [settings, lookalike, nul]) await ctx.adapter.settings.put(record);
      for (const record of [settings, lookalike, nul]) expect(await ctx.adapter.settings.get(record.user_id)).toEqual(record);
      expect(await ctx.adapter.settings.get(`${userId}\uffff`)).toBeNull();

      const tokens = makeProviderTokensRecord({ user_id: userId });
      await ctx.adapter.providerTokens.put(tokens);
      expect(await ctx.adapter.providerTokens.get(userId)).toEqual(tokens);
      await ctx.adapter.providerTokens.delete(userId);
      expect(await ctx.adapter.providerTokens.get(userId)).toBeNull();

      const orgId = `${uniqueId('org')}${text}`;
      const webhook = makeWebhookRecord({ id: `${uniqueId('wh')}${text}`, org_id: orgId, source: text });
      await ctx.adapter.webhooks.insert(webhook);
      await expect(ctx.adapter.webhooks.insert(makeWebhookRecord({ org_id: orgId, source: text }))).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.webhooks.getBySource(orgId, text)).toEqual(webhook);
      expect(await ctx.adapter.webhooks.get(orgId, webhook.id)).toEqual(webhook);
      expect(await ctx.adapter.webhooks.list(orgId, { limit: 10, offset: 0 })).toEqual({ items: [webhook], total: 1 });
      expect(await ctx.adapter.webhooks.delete(orgId, webhook.id)).toBe(true);
      expect(await ctx.adapter.webhooks.getBySource(orgId, text)).toBeNull();

      const automation = makeAutomationRecord({ id: `${uniqueId('auto')}${text}`, org_id: orgId, trigger: { source: text } });
      await ctx.adapter.automations.insert(automation);
      expect(await ctx.adapter.automations.listEnabledBySource(orgId, text)).toEqual([automation]);
      await ctx.adapter.automations.markTriggered(orgId, [automation.id], fixtureTime(7));
      expect(await ctx.adapter.automations.get(orgId, automation.id)).toEqual({ ...automation, last_triggered_at: fixtureTime(7) });
      expect(await ctx.adapter.automations.delete(orgId, automation.id)).toBe(true);

      const key = makeApiKeyRecord({ id: `${uniqueId('key')}${text}`, user_id: userId, key_hash: `${uniqueId('hash')}${text}` });
      await ctx.adapter.apiKeys.insert(key);
      expect(await ctx.adapter.apiKeys.get(key.id)).toEqual(key);
      expect(await ctx.adapter.apiKeys.getByHash(key.key_hash)).toEqual(key);
      expect(await ctx.adapter.apiKeys.listByUser(userId)).toEqual([key]);
      expect(await ctx.adapter.apiKeys.delete(key.id)).toBe(true);

      const delivery = makeDeliveryRecord({ id: `${uniqueId('dlv')}${text}`, org_id: orgId, source: text });
      await ctx.adapter.deliveries.insert(delivery);
      expect(await ctx.adapter.deliveries.get(orgId, delivery.id)).toEqual(delivery);
      expect(await ctx.adapter.deliveries.list(orgId, { limit: 10, offset: 0, source: text })).toEqual({ items: [delivery], total: 1 });

      const link = makeGithubLinkRecord({ key: `login-${uniqueId('gh')}${text}`, org_id: orgId });
      await ctx.adapter.githubLinks.put(link);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'account', key: link.key }])).toEqual([orgId]);
      expect(await ctx.adapter.githubLinks.listByOrg(orgId)).toEqual([link]);
      expect(await ctx.adapter.githubLinks.delete('account', link.key, orgId)).toBe(true);
      expect(await ctx.adapter.githubLinks.findOrgs([{ kind: 'account', key: link.key }])).toEqual([]);

      const sandboxes = [1, 2, 3].map((n) =>
        makeSandboxRecord({ id: `${uniqueId('sbx')}${text}`, created_by_user_id: userId, created_at: fixtureTime(n % 2) }),
      );
      for (const sandbox of sandboxes) await ctx.adapter.sandboxes.insert(sandbox);
      const pages = await collectPages((options) => ctx.adapter.sandboxes.listByUser(userId, options), 1);
      expect(
        pages
          .flatMap((page) => page.items)
          .map((sandbox) => sandbox.id)
          .sort(),
      ).toEqual(sandboxes.map((sandbox) => sandbox.id).sort());
      for (const sandbox of sandboxes) expect(await ctx.adapter.sandboxes.delete(sandbox.id)).toBe(true);

      const conversation = makeConversationRecord({ id: `${uniqueId('conv')}${text}`, created_by_user_id: userId });
      await ctx.adapter.conversations.insert(conversation);
      const { seq: _seq, ...event } = makeConversationEvent({ conversation_id: conversation.id });
      expect(await ctx.adapter.conversations.appendEvents(conversation.id, [event])).toEqual([{ ...event, seq: 0 }]);
      expect(await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).toEqual({ items: [{ ...event, seq: 0 }], nextPageId: null });
      const renamed = { ...conversation, title: text, version: 1 };
      expect(await ctx.adapter.conversations.patch(conversation.id, { title: text }, { version: 0 })).toEqual(renamed);
      expect(await ctx.adapter.conversations.listByUser(userId, { limit: 10 })).toEqual({ items: [renamed], nextPageId: null });

      const task = makeStartTaskRecord({ id: `${uniqueId('task')}${text}`, created_by_user_id: userId });
      await ctx.adapter.startTasks.insert(task);
      expect(await ctx.adapter.startTasks.get(task.id)).toEqual(task);
      expect(await ctx.adapter.startTasks.listByUser(userId, { limit: 10 })).toEqual({ items: [task], nextPageId: null });
    }
  });

  it('runs under such keys are transitioned, renewed, completed and released by them', async () => {
    for (const text of HOSTILE_TEXTS) {
      const orgId = `${uniqueId('org')}${text}`;
      const owner = `${uniqueId('owner')}${text}`;
      const held = (overrides = {}) =>
        makeRunRecord({
          id: `${uniqueId('run')}${text}`,
          org_id: orgId,
          automation_id: `${uniqueId('auto')}${text}`,
          status: 'RUNNING',
          attempt: 1,
          started_at: fixtureTime(0),
          lease_owner: owner,
          lease_expires_at: fixtureTime(60),
          ...overrides,
        });
      const completed = held();
      const released = held();
      const other = held({ lease_owner: `${owner}\u0000` });
      await ctx.adapter.runs.insertMany([completed, released, other]);
      expect(await ctx.adapter.runs.listByAutomation(orgId, completed.automation_id, { limit: 10, offset: 0 })).toEqual({ items: [completed], total: 1 });

      const refs = [completed, released, other].map((run) => ({ orgId, id: run.id }));
      const renewed = await ctx.adapter.runQueue.renew(owner, [...refs, { orgId: `${orgId}\u0000`, id: completed.id }], fixtureTime(120));
      expect(renewed.map((ref) => ref.id).sort()).toEqual([completed.id, released.id].sort());
      expect(renewed.every((ref) => ref.orgId === orgId)).toBe(true);
      expect(await ctx.adapter.runs.get(orgId, completed.id)).toEqual({ ...completed, lease_expires_at: fixtureTime(120) });

      const completion = { status: 'COMPLETED' as const, error_detail: text, completed_at: fixtureTime(130) };
      expect(await ctx.adapter.runQueue.complete(`${owner}\ud800`, { orgId, id: completed.id }, completion)).toBeNull();
      expect(await ctx.adapter.runQueue.complete(owner, { orgId, id: completed.id }, completion)).toEqual({
        ...completed,
        ...completion,
        lease_owner: null,
        lease_expires_at: null,
      });
      const release = { error_detail: text, not_before: null, attempt: 1 };
      expect(await ctx.adapter.runQueue.release(owner, { orgId, id: `${released.id}\u0000` }, release)).toBeNull();
      expect(await ctx.adapter.runQueue.release(owner, { orgId, id: released.id }, release)).toEqual({
        ...released,
        ...release,
        status: 'PENDING',
        lease_owner: null,
        lease_expires_at: null,
      });
      expect(await ctx.adapter.runs.transition(orgId, other.id, { from: ['RUNNING'] }, { status: 'CANCELLED', error_detail: text })).toEqual({
        ...other,
        status: 'CANCELLED',
        error_detail: text,
      });
    }
  });

  it('lookups, updates and deletes by keys with U+0000 or a lone surrogate find nothing and never throw', async () => {
    const orgId = uniqueId('org');
    // Something under the org, so a lookup that ignored the odd key would find it.
    const webhook = makeWebhookRecord({ org_id: orgId, source: 'github' });
    await ctx.adapter.webhooks.insert(webhook);
    for (const key of unknownKeys('key')) await expectNothingFound(ctx.adapter, key, orgId);
    expect(await ctx.adapter.runQueue.renew(`owner\u0000`, [{ orgId: `${orgId}\ud800`, id: `run\u0000` }], fixtureTime(1))).toEqual([]);
    const completion = { status: 'COMPLETED' as const, error_detail: null, completed_at: fixtureTime(1) };
    expect(await ctx.adapter.runQueue.complete('\udc00', { orgId: '\u0000', id: '\ud800' }, completion)).toBeNull();
    expect(await ctx.adapter.runQueue.release('\u0000', { orgId, id: 'run\udc00' }, { error_detail: null, not_before: null, attempt: 0 })).toBeNull();
    expect(await ctx.adapter.webhooks.getBySource(orgId, 'github')).toEqual(webhook);
  });

  it('and inside a transaction, which goes on and commits', async () => {
    const orgId = uniqueId('org');
    const settings = makeSettingsRecord();
    await ctx.adapter.transaction(async (tx) => {
      for (const key of unknownKeys('key').slice(0, 4)) await expectNothingFound(tx, key, orgId);
      await tx.settings.put(settings);
    });
    expect(await ctx.adapter.settings.get(settings.user_id)).toEqual(settings);
  });
}
