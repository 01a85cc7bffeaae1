/**
 * Conformance: records never alias stored state. Callers mutate what they pass in and what
 * they get back (the core merges settings in place, for one); neither may leak into storage.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { present } from '../fixtures/present.js';
import type {
  ApiKeyRecord,
  AppConversationRecord,
  AutomationRecord,
  ConversationEvent,
  DeliveryRecord,
  GithubLinkRecord,
  RunRecord,
  SandboxRecord,
  SettingsRecord,
  StartTaskRecord,
  WebhookRecord,
} from '@agent-platform/core';
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
} from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { eventsFor } from './conversations.js';

function scribbleSettings(record: SettingsRecord): void {
  record.values.language = 'scribbled';
  record.secrets.llm_api_key = 'scribbled';
  record.mcp_config?.sse_servers.push({ url: 'https://scribbled.example.com', api_key: null });
  const stdio = record.mcp_config?.stdio_servers[0];
  if (stdio) {
    stdio.args.push('scribbled');
    stdio.env.SCRIBBLED = 'yes';
  }
}

function scribbleApiKey(record: ApiKeyRecord): void {
  record.name = 'scribbled';
  record.last_used_at = '2000-01-01T00:00:00.000Z';
}

function scribbleWebhook(record: WebhookRecord): void {
  record.name = 'scribbled';
  record.enabled = !record.enabled;
}

function scribbleAutomation(record: AutomationRecord): void {
  record.name = 'scribbled';
  record.enabled = !record.enabled;
  record.trigger.source = 'scribbled';
  if (Array.isArray(record.trigger.on)) record.trigger.on.push('scribbled.*');
  record.last_triggered_at = '2000-01-01T00:00:00.000Z';
}

function scribbleRun(record: RunRecord): void {
  record.status = 'CANCELLED';
  record.error_detail = 'scribbled';
}

function scribbleDelivery(record: DeliveryRecord): void {
  record.status = 'ignored';
  record.runs_created.push('scribbled');
  const outcome = record.outcomes[0];
  if (outcome) {
    outcome.automation_name = 'scribbled';
    record.outcomes.push({ ...outcome, automation_id: 'scribbled' });
  }
}

function scribbleLink(record: GithubLinkRecord): void {
  record.created_at = '2000-01-01T00:00:00.000Z';
}

function scribbleSandbox(record: SandboxRecord): void {
  record.status = 'ERROR';
  record.session_api_key = 'scribbled';
  const url = record.exposed_urls[0];
  if (url) url.url = 'http://scribbled.example.com';
  record.exposed_urls.push({ name: 'SCRIBBLED', url: 'http://scribbled.example.com', port: 1 });
}

function scribbleConversation(record: AppConversationRecord): void {
  record.title = 'scribbled';
  record.execution_status = 'error';
  record.pr_number.push(999);
}

function scribbleEvent(event: Partial<ConversationEvent>): void {
  event.message = 'scribbled';
  event.seq = 999;
  if (event.data) {
    event.data.scribbled = true;
    const lines = event.data.lines;
    if (Array.isArray(lines)) lines.push('scribbled');
  }
}

function scribbleStartTask(record: StartTaskRecord): void {
  record.status = 'ERROR';
  record.request.scribbled = true;
  const message = record.request.initial_message;
  if (message && typeof message === 'object') (message as Record<string, unknown>).content = 'scribbled';
}

export function describeCopies(ctx: SuiteContext): void {
  describe('returned records do not alias stored state', () => {
    it('mutating a settings record after put does not change what is stored', async () => {
      const record = makeSettingsRecord();
      const expected = structuredClone(record);
      await ctx.adapter.settings.put(record);
      scribbleSettings(record);
      expect(await ctx.adapter.settings.get(record.user_id)).toEqual(expected);
    });

    it('mutating a returned settings record does not change what is stored', async () => {
      const record = makeSettingsRecord();
      await ctx.adapter.settings.put(record);
      const returned = await ctx.adapter.settings.get(record.user_id);
      if (returned) scribbleSettings(returned);
      expect(await ctx.adapter.settings.get(record.user_id)).toEqual(record);
    });

    it('provider-token records are copied on put and on get', async () => {
      const record = makeProviderTokensRecord();
      const expected = structuredClone(record);
      await ctx.adapter.providerTokens.put(record);
      record.tokens.gitlab = { token: 'scribbled', host: null, user_id: null };
      if (record.tokens.github) record.tokens.github.host = 'scribbled.example.com';
      const returned = await ctx.adapter.providerTokens.get(record.user_id);
      if (returned?.tokens.github) returned.tokens.github.token = 'scribbled';
      expect(await ctx.adapter.providerTokens.get(record.user_id)).toEqual(expected);
    });

    it('api-key records are copied on insert and on every read', async () => {
      const record = makeApiKeyRecord();
      const expected = structuredClone(record);
      await ctx.adapter.apiKeys.insert(record);
      scribbleApiKey(record);
      const byId = await ctx.adapter.apiKeys.get(expected.id);
      const byHash = await ctx.adapter.apiKeys.getByHash(expected.key_hash);
      const listed = await ctx.adapter.apiKeys.listByUser(expected.user_id);
      for (const returned of [byId, byHash, ...listed]) if (returned) scribbleApiKey(returned);
      expect(await ctx.adapter.apiKeys.get(expected.id)).toEqual(expected);
    });

    it('webhook records are copied on insert, on update and on every read', async () => {
      const record = makeWebhookRecord();
      await ctx.adapter.webhooks.insert(record);
      scribbleWebhook(record);
      const updated = makeWebhookRecord({ id: record.id, org_id: record.org_id, source: record.source });
      const expected = structuredClone(updated);
      await ctx.adapter.webhooks.update(updated);
      scribbleWebhook(updated);
      const byId = await ctx.adapter.webhooks.get(expected.org_id, expected.id);
      const bySource = await ctx.adapter.webhooks.getBySource(expected.org_id, expected.source);
      const { items } = await ctx.adapter.webhooks.list(expected.org_id, { limit: 10, offset: 0 });
      for (const returned of [byId, bySource, ...items]) if (returned) scribbleWebhook(returned);
      expect(await ctx.adapter.webhooks.get(expected.org_id, expected.id)).toEqual(expected);
    });

    it('automation records are copied on insert, on update and on every read', async () => {
      const record = makeAutomationRecord();
      const inserted = structuredClone(record);
      await ctx.adapter.automations.insert(record);
      scribbleAutomation(record);
      expect(await ctx.adapter.automations.get(inserted.org_id, inserted.id)).toEqual(inserted);
      const updated = makeAutomationRecord({ id: record.id, org_id: record.org_id });
      const expected = structuredClone(updated);
      await ctx.adapter.automations.update(updated);
      scribbleAutomation(updated);
      const byId = await ctx.adapter.automations.get(expected.org_id, expected.id);
      const { items } = await ctx.adapter.automations.list(expected.org_id, { limit: 10, offset: 0 });
      const enabled = await ctx.adapter.automations.listEnabledBySource(expected.org_id, expected.trigger.source);
      for (const returned of [byId, ...items, ...enabled]) if (returned) scribbleAutomation(returned);
      expect(await ctx.adapter.automations.get(expected.org_id, expected.id)).toEqual(expected);
      expect(await ctx.adapter.automations.listEnabledBySource(expected.org_id, expected.trigger.source)).toEqual([expected]);
    });

    it('markTriggered leaves the ids array it was given alone, and later changes to it do nothing', async () => {
      const record = makeAutomationRecord();
      await ctx.adapter.automations.insert(record);
      const ids = [record.id];
      const marking = ctx.adapter.automations.markTriggered(record.org_id, ids, fixtureTime(5));
      ids.length = 0;
      await marking;
      expect((await ctx.adapter.automations.get(record.org_id, record.id))?.last_triggered_at).toBe(fixtureTime(5));
    });

    it('run records are copied on insertMany, on transition and on every read', async () => {
      const record = makeRunRecord();
      const inserted = structuredClone(record);
      const batch = [record];
      await ctx.adapter.runs.insertMany(batch);
      scribbleRun(record);
      batch.push(makeRunRecord({ org_id: record.org_id, automation_id: record.automation_id }));
      expect(await ctx.adapter.runs.get(inserted.org_id, inserted.id)).toEqual(inserted);
      expect((await ctx.adapter.runs.listByAutomation(inserted.org_id, inserted.automation_id, { limit: 10, offset: 0 })).total).toBe(1);
      const patch = { status: 'RUNNING' as const, attempt: 1 };
      const expected = { ...structuredClone(inserted), ...patch };
      const updated = await ctx.adapter.runs.transition(inserted.org_id, inserted.id, { from: ['PENDING'] }, patch);
      expect(updated).toEqual(expected);
      patch.attempt = 7;
      scribbleRun(present(updated, 'the transitioned run'));
      const byId = await ctx.adapter.runs.get(expected.org_id, expected.id);
      const { items } = await ctx.adapter.runs.listByAutomation(expected.org_id, expected.automation_id, { limit: 10, offset: 0 });
      for (const returned of [byId, ...items]) if (returned) scribbleRun(returned);
      expect(await ctx.adapter.runs.get(expected.org_id, expected.id)).toEqual(expected);
      expect(items).toHaveLength(1);
    });

    it('delivery records are copied on insert and on every read', async () => {
      const record = makeDeliveryRecord();
      const expected = structuredClone(record);
      await ctx.adapter.deliveries.insert(record);
      scribbleDelivery(record);
      const byId = await ctx.adapter.deliveries.get(expected.org_id, expected.id);
      const { items } = await ctx.adapter.deliveries.list(expected.org_id, { limit: 10, offset: 0 });
      const filtered = await ctx.adapter.deliveries.list(expected.org_id, { limit: 10, offset: 0, status: 'matched' });
      for (const returned of [byId, ...items, ...filtered.items]) if (returned) scribbleDelivery(returned);
      expect(await ctx.adapter.deliveries.get(expected.org_id, expected.id)).toEqual(expected);
      expect(await ctx.adapter.deliveries.list(expected.org_id, { limit: 10, offset: 0, status: 'matched' })).toEqual({
        items: [expected],
        total: 1,
      });
    });

    it('a dedup claim is taken as it was when claimDedupKey was called', async () => {
      const delivery = makeDeliveryRecord();
      const claim = {
        orgId: delivery.org_id,
        source: delivery.source,
        key: delivery.dedup_key,
        deliveryId: delivery.id,
        expiresAt: fixtureTime(3600),
        now: fixtureTime(0),
      };
      const claiming = ctx.adapter.deliveries.claimDedupKey(claim);
      claim.deliveryId = 'scribbled';
      claim.key = 'scribbled';
      expect(await claiming).toBeNull();
      const again = { ...claim, key: delivery.dedup_key, deliveryId: 'another', now: fixtureTime(1) };
      expect(await ctx.adapter.deliveries.claimDedupKey(again)).toBe(delivery.id);
    });

    it('GitHub link records are copied on put and on every read', async () => {
      const record = makeGithubLinkRecord();
      const expected = structuredClone(record);
      await ctx.adapter.githubLinks.put(record);
      scribbleLink(record);
      const listed = await ctx.adapter.githubLinks.listByOrg(expected.org_id);
      for (const returned of listed) scribbleLink(returned);
      expect(await ctx.adapter.githubLinks.listByOrg(expected.org_id)).toEqual([expected]);
    });

    it('sandbox records are copied on insert, on update and on every read', async () => {
      const record = makeSandboxRecord();
      const inserted = structuredClone(record);
      await ctx.adapter.sandboxes.insert(record);
      scribbleSandbox(record);
      expect(await ctx.adapter.sandboxes.get(inserted.id)).toEqual(inserted);
      const updated: SandboxRecord = { ...structuredClone(inserted), status: 'PAUSED', updated_at: fixtureTime(5) };
      const expected = structuredClone(updated);
      await ctx.adapter.sandboxes.update(updated);
      scribbleSandbox(updated);
      const byId = await ctx.adapter.sandboxes.get(expected.id);
      const { items } = await ctx.adapter.sandboxes.listByUser(expected.created_by_user_id, { limit: 10 });
      for (const returned of [byId, ...items]) if (returned) scribbleSandbox(returned);
      expect(await ctx.adapter.sandboxes.get(expected.id)).toEqual(expected);
      expect(await ctx.adapter.sandboxes.listByUser(expected.created_by_user_id, { limit: 10 })).toEqual({
        items: [expected],
        nextPageId: null,
      });
    });

    it('conversation records are copied on insert, on patch and on every read', async () => {
      const record = makeConversationRecord();
      const inserted = structuredClone(record);
      await ctx.adapter.conversations.insert(record);
      scribbleConversation(record);
      expect(await ctx.adapter.conversations.get(inserted.id)).toEqual(inserted);
      const patch = { execution_status: 'finished' as const, pr_number: [5] };
      const expected: AppConversationRecord = { ...structuredClone(inserted), ...structuredClone(patch), version: 1 };
      const pending = ctx.adapter.conversations.patch(inserted.id, patch);
      // Changed while the write may still wait its turn: what lands is what was given.
      patch.pr_number.push(999);
      const patched = await pending;
      expect(patched).toEqual(expected);
      if (patched) scribbleConversation(patched);
      const byId = await ctx.adapter.conversations.get(expected.id);
      const { items } = await ctx.adapter.conversations.listByUser(expected.created_by_user_id, { limit: 10 });
      for (const returned of [byId, ...items]) if (returned) scribbleConversation(returned);
      expect(await ctx.adapter.conversations.get(expected.id)).toEqual(expected);
      expect(await ctx.adapter.conversations.listByUser(expected.created_by_user_id, { limit: 10 })).toEqual({
        items: [expected],
        nextPageId: null,
      });
    });

    it('conversation events are copied on append, in what append returns and on every read', async () => {
      const conversation = makeConversationRecord();
      await ctx.adapter.conversations.insert(conversation);
      const events = eventsFor(conversation.id, 2);
      const expected = events.map((event, seq) => ({ ...structuredClone(event), seq }));
      const batch = [...events];
      const appending = ctx.adapter.conversations.appendEvents(conversation.id, batch);
      // Changes made while the append is on its way, and after it, must not land.
      batch.push(...eventsFor(conversation.id, 1));
      for (const event of events) scribbleEvent(event);
      const returned = await appending;
      expect(returned).toEqual(expected);
      for (const event of returned) scribbleEvent(event);
      const first = await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 });
      for (const event of first.items) scribbleEvent(event);
      expect(await ctx.adapter.conversations.listEvents(conversation.id, { limit: 10 })).toEqual({
        items: expected,
        nextPageId: null,
      });
    });

    it('start-task records are copied on insert, on update and on every read', async () => {
      const record = makeStartTaskRecord();
      const inserted = structuredClone(record);
      await ctx.adapter.startTasks.insert(record);
      scribbleStartTask(record);
      expect(await ctx.adapter.startTasks.get(inserted.id)).toEqual(inserted);
      const updated: StartTaskRecord = { ...structuredClone(inserted), status: 'PREPARING_REPOSITORY', sandbox_id: 'sbx-1' };
      const expected = structuredClone(updated);
      await ctx.adapter.startTasks.update(updated);
      scribbleStartTask(updated);
      const byId = await ctx.adapter.startTasks.get(expected.id);
      const { items } = await ctx.adapter.startTasks.listByUser(expected.created_by_user_id, { limit: 10 });
      for (const returned of [byId, ...items]) if (returned) scribbleStartTask(returned);
      expect(await ctx.adapter.startTasks.get(expected.id)).toEqual(expected);
      expect(await ctx.adapter.startTasks.listByUser(expected.created_by_user_id, { limit: 10 })).toEqual({
        items: [expected],
        nextPageId: null,
      });
    });

    it('records written and read inside a transaction are copies too', async () => {
      const record = makeSettingsRecord();
      const expected = structuredClone(record);
      await ctx.adapter.transaction(async (tx) => {
        await tx.settings.put(record);
        scribbleSettings(record);
        const returned = await tx.settings.get(expected.user_id);
        if (returned) scribbleSettings(returned);
        expect(await tx.settings.get(expected.user_id)).toEqual(expected);
      });
      expect(await ctx.adapter.settings.get(expected.user_id)).toEqual(expected);
    });
  });
}
