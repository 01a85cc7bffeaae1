/**
 * Conformance: records never alias stored state. Callers mutate what they pass in and what
 * they get back (the core merges settings in place, for one); neither may leak into storage.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type {
  ApiKeyRecord,
  AutomationRecord,
  DeliveryRecord,
  GithubLinkRecord,
  RunRecord,
  SettingsRecord,
  WebhookRecord,
} from '@agent-platform/core';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeAutomationRecord,
  makeDeliveryRecord,
  makeGithubLinkRecord,
  makeProviderTokensRecord,
  makeRunRecord,
  makeSettingsRecord,
  makeWebhookRecord,
} from '../fixtures.js';
import type { SuiteContext } from './context.js';

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

    it('run records are copied on insertMany, on update and on every read', async () => {
      const record = makeRunRecord();
      const inserted = structuredClone(record);
      const batch = [record];
      await ctx.adapter.runs.insertMany(batch);
      scribbleRun(record);
      batch.push(makeRunRecord({ org_id: record.org_id, automation_id: record.automation_id }));
      expect(await ctx.adapter.runs.get(inserted.org_id, inserted.id)).toEqual(inserted);
      expect((await ctx.adapter.runs.listByAutomation(inserted.org_id, inserted.automation_id, { limit: 10, offset: 0 })).total).toBe(1);
      const updated = { ...structuredClone(inserted), status: 'RUNNING' as const, attempt: 1 };
      const expected = structuredClone(updated);
      await ctx.adapter.runs.update(updated);
      scribbleRun(updated);
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
