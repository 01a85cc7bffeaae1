import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, PlatformError } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';

function setup() {
  const storage = createMemoryStorage();
  const platform = createAgentPlatform({ storage, secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }), publicUrl: 'http://localhost' });
  return { storage, platform, alice: { userId: 'alice', orgId: 'acme' }, bob: { userId: 'bob', orgId: 'acme' } };
}

const failure = async (promise: Promise<unknown>): Promise<PlatformError> => {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
};

describe('SecretsService (platform.secrets)', () => {
  it('creates secrets sealed, lists names and descriptions only, and gives the values to the agent', async () => {
    const { storage, platform, alice } = setup();
    expect(await platform.secrets.search(alice)).toEqual({ items: [], next_page_id: null });
    expect(await platform.secrets.create(alice, { name: 'NPM_TOKEN', value: 'npm-secret-1', description: 'publishes' })).toEqual({
      name: 'NPM_TOKEN',
      description: 'publishes',
    });
    await platform.secrets.create(alice, { name: 'DEPLOY_KEY', value: 'deploy-secret-2' });
    const page = await platform.secrets.search(alice);
    expect(page).toEqual({
      items: [
        { name: 'DEPLOY_KEY', description: null },
        { name: 'NPM_TOKEN', description: 'publishes' },
      ],
      next_page_id: null,
    });
    const stored = JSON.stringify(await storage.settings.get('alice'));
    expect(stored).not.toContain('npm-secret-1');
    expect(stored).not.toContain('deploy-secret-2');
    expect((await platform.settings.agentSettings('alice')).customSecrets).toEqual({ NPM_TOKEN: 'npm-secret-1', DEPLOY_KEY: 'deploy-secret-2' });
    // The same secrets as the settings' secrets_store.custom_secrets.
    expect((await platform.settings.get(alice)).custom_secrets).toEqual(expect.arrayContaining(page.items));
  });

  it('refuses a taken name (409) and bad input (422)', async () => {
    const { platform, alice } = setup();
    await platform.secrets.create(alice, { name: 'A', value: 'a' });
    expect((await failure(platform.secrets.create(alice, { name: 'A', value: 'b' }))).status).toBe(409);
    for (const [input, loc] of [
      [{ name: '1BAD', value: 'x' }, ['body', 'name']],
      [{ name: 'has-dash', value: 'x' }, ['body', 'name']],
      [{ name: 'EMPTY', value: '' }, ['body', 'value']],
      [{ name: 'B', value: 'x', extra: 1 }, ['body', 'extra']],
      [{ value: 'x' }, ['body', 'name']],
    ] as const) {
      const error = await failure(platform.secrets.create(alice, input));
      expect(error.status).toBe(422);
      expect(error.issues?.[0]?.loc).toEqual(loc);
    }
    // The value stayed what it was.
    expect((await platform.settings.agentSettings('alice')).customSecrets).toEqual({ A: 'a' });
  });

  it('renames and re-describes, keeping the value; 404 unknown, 409 a taken new name', async () => {
    const { platform, alice } = setup();
    await platform.secrets.create(alice, { name: 'DRAFT', value: 'the-value', description: 'old' });
    await platform.secrets.create(alice, { name: 'OTHER', value: 'other-value' });
    expect(await platform.secrets.update(alice, 'DRAFT', { name: 'FINAL', description: 'new' })).toEqual({ name: 'FINAL', description: 'new' });
    expect((await platform.settings.agentSettings('alice')).customSecrets).toEqual({ FINAL: 'the-value', OTHER: 'other-value' });
    expect(await platform.secrets.update(alice, 'FINAL', { name: 'FINAL' })).toEqual({ name: 'FINAL', description: null });
    expect((await failure(platform.secrets.update(alice, 'DRAFT', { name: 'X' }))).status).toBe(404);
    expect((await failure(platform.secrets.update(alice, 'FINAL', { name: 'OTHER' }))).status).toBe(409);
    expect((await failure(platform.secrets.update(alice, 'FINAL', { name: 'bad name' }))).status).toBe(422);
    expect((await platform.secrets.search(alice)).items).toEqual([
      { name: 'FINAL', description: null },
      { name: 'OTHER', description: null },
    ]);
  });

  it('deletes; 404 for an unknown name, and never touches another user’s', async () => {
    const { platform, alice, bob } = setup();
    await platform.secrets.create(alice, { name: 'MINE', value: 'alice-value' });
    expect((await failure(platform.secrets.delete(bob, 'MINE'))).status).toBe(404);
    expect((await failure(platform.secrets.update(bob, 'MINE', { name: 'MINE' }))).status).toBe(404);
    expect((await platform.secrets.search(bob)).items).toEqual([]);
    await platform.secrets.delete(alice, 'MINE');
    expect((await platform.secrets.search(alice)).items).toEqual([]);
    expect((await failure(platform.secrets.delete(alice, 'MINE'))).status).toBe(404);
    expect((await failure(platform.secrets.delete(alice, 'constructor'))).status).toBe(404);
  });

  it('pages by name with an opaque page id, and filters by name__contains', async () => {
    const { platform, alice } = setup();
    const names = ['B_TWO', 'A_ONE', 'C_THREE', 'a_lower', 'D_FOUR'];
    for (const name of names) await platform.secrets.create(alice, { name, value: `${name}-value` });
    const seen: string[] = [];
    let pageId: string | undefined;
    do {
      const page = await platform.secrets.search(alice, { limit: '2', ...(pageId ? { page_id: pageId } : {}) });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.name));
      pageId = page.next_page_id ?? undefined;
      if (pageId) expect(pageId).not.toContain('_');
    } while (pageId);
    expect(seen).toEqual([...names].sort());
    expect((await platform.secrets.search(alice, { name__contains: 'o' })).items.map((item) => item.name)).toEqual(['A_ONE', 'B_TWO', 'D_FOUR', 'a_lower']);
    for (const query of [{ page_id: '!!' }, { page_id: 'Zm9v!' }, { page_id: Buffer.from('1abc').toString('base64url') }, { limit: '0' }, { limit: '101' }]) {
      expect((await failure(platform.secrets.search(alice, query))).status).toBe(422);
    }
  });

  it('lets concurrent changes all land: creates of different names, and a settings store beside them', async () => {
    const { platform, alice } = setup();
    const names = Array.from({ length: 25 }, (_, n) => `SECRET_${n}`);
    await Promise.all([
      ...names.map((name) => platform.secrets.create(alice, { name, value: `${name}-value` })),
      platform.settings.store(alice, { llm_model: 'openai/gpt-4o' }),
    ]);
    expect((await platform.secrets.search(alice)).items.map((item) => item.name).sort()).toEqual([...names].sort());
    expect((await platform.settings.get(alice)).llm_model).toBe('openai/gpt-4o');
    // Two creates of one name: exactly one wins.
    const outcomes = await Promise.allSettled([
      platform.secrets.create(alice, { name: 'RACE', value: '1' }),
      platform.secrets.create(alice, { name: 'RACE', value: '2' }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
  });

  it('records each change in the org’s audit log by name, never the value; a refused change records nothing', async () => {
    const { platform, alice } = setup();
    await platform.secrets.create(alice, { name: 'NPM_TOKEN', value: 'npm-value-never-logged', description: 'publishes' });
    await failure(platform.secrets.create(alice, { name: 'NPM_TOKEN', value: 'npm-value-2-never-logged' }));
    await platform.secrets.update(alice, 'NPM_TOKEN', { name: 'NPM_PUBLISH_TOKEN', description: 'publishes' });
    await platform.secrets.update(alice, 'NPM_PUBLISH_TOKEN', { name: 'NPM_PUBLISH_TOKEN' });
    await failure(platform.secrets.update(alice, 'MISSING', { name: 'MISSING' }));
    await platform.secrets.delete(alice, 'NPM_PUBLISH_TOKEN');
    await failure(platform.secrets.delete(alice, 'NPM_PUBLISH_TOKEN'));

    const { entries } = await platform.audit.list(alice, { limit: 100, after: 0 });
    expect(entries.map(({ action, target, details, actor }) => ({ action, target, details, actor: actor.id }))).toEqual([
      { action: 'secret.created', target: { type: 'secret', id: 'NPM_TOKEN' }, details: { description: true }, actor: 'alice' },
      { action: 'secret.updated', target: { type: 'secret', id: 'NPM_TOKEN' }, details: { fields: ['name'], renamed_to: 'NPM_PUBLISH_TOKEN' }, actor: 'alice' },
      { action: 'secret.updated', target: { type: 'secret', id: 'NPM_PUBLISH_TOKEN' }, details: { fields: ['description'] }, actor: 'alice' },
      { action: 'secret.deleted', target: { type: 'secret', id: 'NPM_PUBLISH_TOKEN' }, details: {}, actor: 'alice' },
    ]);
    expect(JSON.stringify(entries)).not.toContain('never-logged');
    expect(await platform.audit.verify(alice)).toEqual({ valid: true, checked: 4, broken_at: null });
  });
});
