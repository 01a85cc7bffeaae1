import { describe, expect, it } from 'vitest';
import {
  apiKeyRecordSchema,
  providerTokensRecordSchema,
  settingsRecordSchema,
  webhookCreateInputSchema,
  webhookRecordSchema,
} from '@agent-platform/core';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeProviderTokensRecord,
  makeSettingsRecord,
  makeWebhookRecord,
  uniqueId,
} from './fixtures.js';

describe('fixtures', () => {
  it('build records that pass the core record schemas', () => {
    for (let n = 0; n < 3; n += 1) {
      const settings = makeSettingsRecord();
      const tokens = makeProviderTokensRecord();
      const apiKey = makeApiKeyRecord();
      const webhook = makeWebhookRecord();
      expect(settingsRecordSchema.parse(settings)).toEqual(settings);
      expect(providerTokensRecordSchema.parse(tokens)).toEqual(tokens);
      expect(apiKeyRecordSchema.parse(apiKey)).toEqual(apiKey);
      expect(webhookRecordSchema.parse(webhook)).toEqual(webhook);
    }
  });

  it('give webhooks a source the create endpoint would accept', () => {
    const { source } = makeWebhookRecord();
    expect(webhookCreateInputSchema.shape.source.safeParse(source).success).toBe(true);
  });

  it('apply overrides and merge settings values', () => {
    const settings = makeSettingsRecord({ user_id: 'u-1', values: { language: 'fr' }, mcp_config: null });
    expect(settings.user_id).toBe('u-1');
    expect(settings.values.language).toBe('fr');
    expect(settings.values.agent).toBe('CodeActAgent');
    expect(settingsRecordSchema.parse(settings)).toEqual(settings);
    expect(makeApiKeyRecord({ last_used_at: fixtureTime(1) }).last_used_at).toBe('2025-01-01T00:00:01.000Z');
  });

  it('never repeat ids, hashes or sources', () => {
    const ids = new Set(Array.from({ length: 100 }, () => uniqueId()));
    const hashes = new Set(Array.from({ length: 100 }, () => makeApiKeyRecord().key_hash));
    const sources = new Set(Array.from({ length: 100 }, () => makeWebhookRecord().source));
    expect([ids.size, hashes.size, sources.size]).toEqual([100, 100, 100]);
  });
});
