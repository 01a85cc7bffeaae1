/**
 * Conformance: records never alias stored state. Callers mutate what they pass in and what
 * they get back (the core merges settings in place, for one); neither may leak into storage.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, SettingsRecord, WebhookRecord } from '@agent-platform/core';
import { makeApiKeyRecord, makeProviderTokensRecord, makeSettingsRecord, makeWebhookRecord } from '../fixtures.js';
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
