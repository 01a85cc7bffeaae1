import { describe, expect, it } from 'vitest';
import {
  apiKeyRecordSchema,
  appConversationRecordSchema,
  automationSchema,
  conversationEventSchema,
  deliveryRecordSchema,
  githubLinkSchema,
  providerTokensRecordSchema,
  runRecordSchema,
  sandboxRecordSchema,
  settingsRecordSchema,
  startTaskRecordSchema,
  triggerSourceSchema,
  webhookCreateInputSchema,
  webhookRecordSchema,
} from '@agent-platform/core';
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

  it('build automation, run, delivery and GitHub-link records that pass the core schemas', () => {
    for (let n = 0; n < 3; n += 1) {
      const automation = makeAutomationRecord();
      const run = makeRunRecord();
      const delivery = makeDeliveryRecord();
      const account = makeGithubLinkRecord();
      const installation = makeGithubLinkRecord({ kind: 'installation' });
      expect(automationSchema.parse(automation)).toEqual(automation);
      expect(runRecordSchema.parse(run)).toEqual(run);
      expect(deliveryRecordSchema.parse(delivery)).toEqual(delivery);
      expect(githubLinkSchema.parse(account)).toEqual(account);
      expect(githubLinkSchema.parse(installation)).toEqual(installation);
    }
  });

  it('build sandbox, conversation, conversation-event and start-task records that pass the core schemas', () => {
    for (let n = 0; n < 3; n += 1) {
      const sandbox = makeSandboxRecord();
      const conversation = makeConversationRecord();
      const event = makeConversationEvent();
      const task = makeStartTaskRecord();
      expect(sandboxRecordSchema.parse(sandbox)).toEqual(sandbox);
      expect(appConversationRecordSchema.parse(conversation)).toEqual(conversation);
      expect(conversationEventSchema.parse(event)).toEqual(event);
      expect(startTaskRecordSchema.parse(task)).toEqual(task);
    }
  });

  it('apply sandbox, conversation, event and start-task overrides', () => {
    const sandbox = makeSandboxRecord({ status: 'PAUSED', exposed_urls: [], created_at: fixtureTime(5) });
    expect(sandbox).toMatchObject({ status: 'PAUSED', exposed_urls: [], created_at: fixtureTime(5) });
    expect(sandboxRecordSchema.parse(sandbox)).toEqual(sandbox);
    const conversation = makeConversationRecord({ trigger: 'automation', run_id: 'run-1', sandbox_id: null });
    expect(conversation).toMatchObject({ trigger: 'automation', run_id: 'run-1', sandbox_id: null });
    expect(appConversationRecordSchema.parse(conversation)).toEqual(conversation);
    const event = makeConversationEvent({ kind: 'message', source: 'user', message: 'Hello', data: null, seq: 3 });
    expect(conversationEventSchema.parse(event)).toEqual(event);
    const task = makeStartTaskRecord({ status: 'READY', app_conversation_id: 'conv-1' });
    expect(startTaskRecordSchema.parse(task)).toEqual(task);
    const ids = [makeSandboxRecord(), makeConversationRecord(), makeConversationEvent(), makeStartTaskRecord()].map((r) => r.id);
    expect(new Set(ids).size).toBe(4);
  });

  it('give automations a valid trigger source and GitHub links keys the links service would store', () => {
    expect(triggerSourceSchema.safeParse(makeAutomationRecord().trigger.source).success).toBe(true);
    expect(makeGithubLinkRecord().key).toMatch(/^[a-z0-9-]{1,100}$/);
    expect(makeGithubLinkRecord({ kind: 'installation' }).key).toMatch(/^\d{1,20}$/);
    const delivery = makeDeliveryRecord();
    expect(JSON.parse(delivery.payload_json ?? 'null')).toMatchObject({ action: 'opened' });
    expect(delivery.outcomes[0]?.run_id).toBe(delivery.runs_created[0]);
  });

  it('merge automation trigger overrides and apply the others', () => {
    const automation = makeAutomationRecord({ enabled: false, trigger: { source: 'stripe' } });
    expect(automation.enabled).toBe(false);
    expect(automation.trigger).toMatchObject({ type: 'event', source: 'stripe' });
    expect(automation.trigger.on).toEqual(['pull_request.opened', 'pull_request.synchronize']);
    expect(automationSchema.parse(automation)).toEqual(automation);
    expect(makeRunRecord({ status: 'FAILED', attempt: 2 })).toMatchObject({ status: 'FAILED', attempt: 2 });
    expect(makeDeliveryRecord({ payload_json: null, status: 'duplicate' })).toMatchObject({ payload_json: null });
    expect(makeGithubLinkRecord({ kind: 'installation', key: '42' }).key).toBe('42');
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

  it('never repeat ids, hashes, sources, dedup keys or link keys', () => {
    const ids = new Set(Array.from({ length: 100 }, () => uniqueId()));
    const hashes = new Set(Array.from({ length: 100 }, () => makeApiKeyRecord().key_hash));
    const sources = new Set(Array.from({ length: 100 }, () => makeWebhookRecord().source));
    const dedupKeys = new Set(Array.from({ length: 100 }, () => makeDeliveryRecord().dedup_key));
    const logins = new Set(Array.from({ length: 100 }, () => makeGithubLinkRecord().key));
    const installations = new Set(Array.from({ length: 100 }, () => makeGithubLinkRecord({ kind: 'installation' }).key));
    expect([ids.size, hashes.size, sources.size]).toEqual([100, 100, 100]);
    expect([dedupKeys.size, logins.size, installations.size]).toEqual([100, 100, 100]);
  });
});
