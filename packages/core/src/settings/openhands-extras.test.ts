import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, PlatformError, type StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';

function setup(storage: StorageAdapter = createMemoryStorage()) {
  const platform = createAgentPlatform({ storage, secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }), publicUrl: 'http://localhost' });
  return { storage, platform, alice: { userId: 'alice', orgId: 'acme' } };
}

describe('apiKeys.current', () => {
  it('answers the stored key a request presented, for its own principal only', async () => {
    const { platform, alice } = setup();
    const created = await platform.apiKeys.create(alice, { name: 'laptop' });
    expect(await platform.apiKeys.current(alice, created.key)).toEqual({
      id: created.id,
      name: 'laptop',
      prefix: created.prefix,
      org_id: 'acme',
      role: 'owner',
      user_id: 'alice',
      created_at: created.created_at,
      last_used_at: null,
      auth_type: 'api_key',
    });
    for (const [principal, key] of [
      [{ userId: 'bob', orgId: 'acme' }, created.key],
      [{ userId: 'alice', orgId: 'other' }, created.key],
      [alice, 'not-a-stored-key'],
      [alice, undefined],
    ] as const) {
      await expect(platform.apiKeys.current(principal, key)).rejects.toMatchObject({ status: 404 });
    }
  });
});

describe('automations: the OpenHands prompt preset and the health', () => {
  it('creates from a prompt as create does, mapping prompt, model and timeout', async () => {
    const { platform, alice } = setup();
    const trigger = { type: 'event', source: 'github', on: ['push', 'pull_request.*'] };
    const automation = await platform.automations.createFromPrompt(alice, { name: 'n', prompt: 'do it', trigger, model: 'openai/gpt-4o', timeout: 90 });
    expect(automation).toMatchObject({
      name: 'n',
      instructions: 'do it',
      llm_model: 'openai/gpt-4o',
      timeout_seconds: 90,
      enabled: true,
      trigger: { ...trigger, filter: null },
    });
    expect(await platform.automations.get(alice, automation.id)).toEqual(automation);
    const disabled = await platform.automations.createFromPrompt(alice, { name: 'off', prompt: 'p', trigger, enabled: false });
    expect(disabled).toMatchObject({ enabled: false, llm_model: null, timeout_seconds: null });
    const cron = await platform.automations
      .createFromPrompt(alice, { name: 'n', prompt: 'p', trigger: { type: 'cron', schedule: '* * * * *' } })
      .catch((error: unknown) => error);
    expect(cron).toBeInstanceOf(PlatformError);
    expect((cron as PlatformError).issues?.[0]).toMatchObject({ loc: ['body', 'trigger', 'type'], msg: expect.stringContaining('not on a schedule') });
    const badFilter = await platform.automations
      .createFromPrompt(alice, { name: 'n', prompt: 'p', trigger: { ...trigger, filter: 'nope(' } })
      .catch((error: unknown) => error);
    expect((badFilter as PlatformError).issues?.[0]?.loc).toEqual(['body', 'trigger', 'filter']);
  });

  it('answers the health: storage reachable and the PENDING runs, or 503', async () => {
    const { platform, alice } = setup();
    expect(await platform.automations.health()).toEqual({ status: 'ok', storage: 'ok', pending_runs: 0 });
    const automation = await platform.automations.create(alice, { name: 'n', instructions: 'i', trigger: { type: 'event', source: 'github', on: 'push' } });
    await platform.automations.dispatch(alice, automation.id, {});
    await platform.automations.dispatch(alice, automation.id, {});
    expect((await platform.automations.health()).pending_runs).toBe(2);
    const down = createMemoryStorage();
    const broken = setup(Object.assign(Object.create(down) as StorageAdapter, { ping: async () => Promise.reject(new Error('down')) }));
    await expect(broken.platform.automations.health()).rejects.toMatchObject({ status: 503, message: 'Storage is not reachable' });
  });
});
