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
      mcp_config: { stdio_servers: [{ name: 'fs', command: 'npx', env: { TOKEN: 'env-secret' } }], sse_servers: [{ url: 'https://m.example.com', api_key: 'mcp-key' }] },
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
