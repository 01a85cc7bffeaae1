import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';

describe('SettingsService.agentSettings', () => {
  it('opens every secret the owner stored, for the agent only', async () => {
    const platform = createAgentPlatform({
      storage: createMemoryStorage(),
      secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
      publicUrl: 'http://localhost',
    });
    const alice = { userId: 'alice', orgId: 'acme' };
    expect(await platform.settings.agentSettings('alice')).toMatchObject({ llmApiKey: null, providerTokens: {}, mcpConfig: null });
    await platform.settings.store(alice, {
      llm_model: 'm',
      llm_api_key: 'sk-1',
      git_user_name: 'Alice',
      max_iterations: 9,
      mcp_config: {
        stdio_servers: [{ name: 'fs', command: 'npx', env: { TOKEN: 'env-secret' } }],
        sse_servers: [{ url: 'https://m.example.com', api_key: 'mcp-key' }],
      },
    });
    await platform.gitProviders.store(alice, { provider_tokens: { gitlab: { token: 'glpat-1', host: 'gitlab.example.com' } } });
    const settings = await platform.settings.agentSettings('alice');
    expect(settings).toMatchObject({
      llmModel: 'm',
      llmApiKey: 'sk-1',
      gitUserName: 'Alice',
      maxIterations: 9,
      providerTokens: { gitlab: { token: 'glpat-1', host: 'gitlab.example.com' } },
    });
    expect(settings.mcpConfig?.sse_servers[0]?.api_key).toBe('mcp-key');
    expect(settings.mcpConfig?.stdio_servers[0]?.env.TOKEN).toBe('env-secret');
  });
});

describe('custom secrets (secrets_store.custom_secrets)', () => {
  const setup = () => {
    const storage = createMemoryStorage();
    const platform = createAgentPlatform({ storage, secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }), publicUrl: 'http://localhost' });
    return { storage, platform, alice: { userId: 'alice', orgId: 'acme' } };
  };

  it('are stored sealed, shown by name only, and opened for the agent', async () => {
    const { storage, platform, alice } = setup();
    await platform.settings.store(alice, {
      secrets_store: { custom_secrets: { DEPLOY_TOKEN: { secret: 'deploy-123', description: 'for deploys' }, NPM_TOKEN: 'npm-456' }, provider_tokens: {} },
    });
    const view = await platform.settings.get(alice);
    expect(view.custom_secrets).toEqual([
      { name: 'DEPLOY_TOKEN', description: 'for deploys' },
      { name: 'NPM_TOKEN', description: null },
    ]);
    expect(JSON.stringify(view)).not.toContain('deploy-123');
    expect(JSON.stringify(await storage.settings.get('alice'))).not.toContain('deploy-123');
    expect((await platform.settings.agentSettings('alice')).customSecrets).toEqual({ DEPLOY_TOKEN: 'deploy-123', NPM_TOKEN: 'npm-456' });
  });

  it('stay when a store omits them; a sent set replaces them, a member without a value keeping its stored one', async () => {
    const { platform, alice } = setup();
    await platform.settings.store(alice, { secrets_store: { custom_secrets: { A: 'a-value', B: 'b-value' } } });
    await platform.settings.store(alice, { llm_model: 'openai/gpt-4o' });
    expect((await platform.settings.agentSettings('alice')).customSecrets).toEqual({ A: 'a-value', B: 'b-value' });
    await platform.settings.store(alice, { secrets_store: { custom_secrets: { A: { secret: null, description: 'kept' }, C: 'c-value' } } });
    expect((await platform.settings.agentSettings('alice')).customSecrets).toEqual({ A: 'a-value', C: 'c-value' });
    expect((await platform.settings.get(alice)).custom_secrets).toEqual([
      { name: 'A', description: 'kept' },
      { name: 'C', description: null },
    ]);
  });

  it('names must be environment variable names', async () => {
    const { platform, alice } = setup();
    await expect(platform.settings.store(alice, { secrets_store: { custom_secrets: { 'not a name': 'x' } } })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
