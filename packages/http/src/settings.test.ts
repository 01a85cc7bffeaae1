import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

describe.each(BINDINGS)('settings and git providers on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding);
  });
  afterAll(() => api.close());

  it('answers 404 before anything is stored, then stores and returns settings', async () => {
    expect((await api.request('GET', '/api/settings', { as: 'bob' })).status).toBe(404);
    const stored = await api.request('POST', '/api/settings', {
      as: 'bob',
      json: { language: 'en', llm_model: 'anthropic/claude-sonnet-4', max_iterations: 50, confirmation_mode: true },
    });
    expect(stored.status).toBe(200);
    expect(stored.json).toEqual({ message: 'Settings stored' });
    const got = await api.request('GET', '/api/settings', { as: 'bob' });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({
      language: 'en',
      llm_model: 'anthropic/claude-sonnet-4',
      max_iterations: 50,
      confirmation_mode: true,
      enable_default_condenser: true,
      enable_sound_notifications: false,
      llm_api_key: null,
      llm_api_key_set: false,
      provider_tokens_set: {},
      mcp_config: null,
    });
  });

  it('keeps settings per user', async () => {
    await api.request('POST', '/api/settings', { as: 'alice', json: { language: 'fr' } });
    expect((await api.request('GET', '/api/settings', { as: 'mallory' })).status).toBe(404);
    expect((await api.request('GET', '/api/settings', { as: 'alice' })).json.language).toBe('fr');
  });

  it('never returns a secret; keeps it when omitted or null, clears it with ""', async () => {
    const secret = 'sk-live-do-not-leak-1234';
    await api.request('POST', '/api/settings', { json: { llm_api_key: secret, search_api_key: 'tvly-secret-5678', llm_model: 'm1' } });
    let got = await api.request('GET', '/api/settings');
    expect(got.text).not.toContain(secret);
    expect(got.text).not.toContain('tvly-secret-5678');
    expect(got.json).toMatchObject({ llm_api_key: null, llm_api_key_set: true, search_api_key_set: true, sandbox_api_key_set: false });

    await api.request('POST', '/api/settings', { json: { llm_api_key: null, language: 'de' } });
    got = await api.request('GET', '/api/settings');
    expect(got.json).toMatchObject({ llm_api_key_set: true, llm_model: 'm1', language: 'de' });

    await api.request('POST', '/api/settings', { json: { llm_api_key: '', search_api_key: '' } });
    got = await api.request('GET', '/api/settings');
    expect(got.json).toMatchObject({ llm_api_key_set: false, search_api_key_set: false, language: null, llm_model: 'm1' });
  });

  it('stores the secret encrypted at rest', async () => {
    await api.request('POST', '/api/settings', { json: { llm_api_key: 'sk-at-rest-check-999' } });
    const record = await api.storage.settings.get('alice');
    expect(JSON.stringify(record)).not.toContain('sk-at-rest-check-999');
    expect(record?.secrets.llm_api_key).toMatch(/^v1\./);
  });

  it('replaces every non-secret field, applying defaults', async () => {
    await api.request('POST', '/api/settings', { json: { enable_sound_notifications: true, git_user_name: 'Alice' } });
    await api.request('POST', '/api/settings', { json: {} });
    const got = await api.request('GET', '/api/settings');
    expect(got.json).toMatchObject({ enable_sound_notifications: false, git_user_name: null });
  });

  it('masks MCP keys and env values, keeping them on a store that sends null', async () => {
    const mcp = {
      sse_servers: [{ url: 'https://mcp.example.com/sse', api_key: 'mcp-secret-key-1' }],
      stdio_servers: [{ name: 'fs', command: 'npx', args: ['-y', 'server-fs'], env: { TOKEN: 'env-secret-2' } }],
      shttp_servers: [{ url: 'wss://mcp.example.com/ws' }],
    };
    await api.request('POST', '/api/settings', { json: { mcp_config: mcp } });
    let got = await api.request('GET', '/api/settings');
    expect(got.text).not.toContain('mcp-secret-key-1');
    expect(got.text).not.toContain('env-secret-2');
    expect(got.json.mcp_config).toEqual({
      sse_servers: [{ url: 'https://mcp.example.com/sse', api_key: null, api_key_set: true }],
      stdio_servers: [{ name: 'fs', command: 'npx', args: ['-y', 'server-fs'], env: { TOKEN: null } }],
      shttp_servers: [{ url: 'wss://mcp.example.com/ws', api_key: null, api_key_set: false }],
    });
    // Send back what GET returned: the stored secrets survive.
    await api.request('POST', '/api/settings', { json: { mcp_config: { ...got.json.mcp_config } } });
    const record = await api.storage.settings.get('alice');
    const sealedKey = record?.mcp_config?.sse_servers[0]?.api_key as string;
    expect(api.platform.settings).toBeDefined();
    expect(sealedKey).toMatch(/^v1\./);
    expect(record?.mcp_config?.stdio_servers[0]?.env.TOKEN).toMatch(/^v1\./);
    got = await api.request('GET', '/api/settings');
    expect(got.json.mcp_config.sse_servers[0].api_key_set).toBe(true);
  });

  it('answers 422 with the exact location for an MCP command with spaces', async () => {
    const response = await api.request('POST', '/api/settings', {
      json: { mcp_config: { stdio_servers: [{ name: 'fs', command: 'npx server-fs' }] } },
    });
    expect(response.status).toBe(422);
    expect(response.json.detail).toEqual([{ loc: ['body', 'mcp_config', 'stdio_servers', 0, 'command'], msg: expect.any(String), type: 'invalid_format' }]);
  });

  it('answers 422 for wrong types and unknown mcp_config members', async () => {
    const response = await api.request('POST', '/api/settings', { json: { max_iterations: 'many', mcp_config: { other: [] } } });
    expect(response.status).toBe(422);
    const locs = response.json.detail.map((issue: { loc: unknown[] }) => issue.loc);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'max_iterations'],
        ['body', 'mcp_config', 'other'],
      ]),
    );
  });

  it('stores provider tokens, shows only their hosts, and never the token', async () => {
    const stored = await api.request('POST', '/api/add-git-providers', {
      as: 'bob',
      json: { provider_tokens: { github: { token: 'ghp_do_not_leak_1' }, gitlab: { token: 'glpat-x-2', host: 'gitlab.example.com' } } },
    });
    expect(stored.status).toBe(200);
    expect(stored.json).toEqual({ message: 'Git providers stored' });
    const got = await api.request('GET', '/api/settings', { as: 'bob' });
    expect(got.json.provider_tokens_set).toEqual({ github: null, gitlab: 'gitlab.example.com' });
    expect(got.text).not.toContain('ghp_do_not_leak_1');
    const record = await api.storage.providerTokens.get('bob');
    expect(JSON.stringify(record)).not.toContain('ghp_do_not_leak_1');
  });

  it('keeps the stored token and takes the new host when the token is empty', async () => {
    await api.request('POST', '/api/add-git-providers', { as: 'bob', json: { provider_tokens: { github: { token: 'ghp_keep_me' } } } });
    const before = (await api.storage.providerTokens.get('bob'))?.tokens.github?.token;
    await api.request('POST', '/api/add-git-providers', { as: 'bob', json: { provider_tokens: { github: { token: '', host: 'github.example.com' } } } });
    const after = (await api.storage.providerTokens.get('bob'))?.tokens.github;
    expect(after?.token).toBe(before);
    expect(after?.host).toBe('github.example.com');
    expect((await api.request('GET', '/api/settings', { as: 'bob' })).json.provider_tokens_set.github).toBe('github.example.com');
  });

  it('skips an empty token with nothing stored, and stores mcp_config sent with tokens', async () => {
    const response = await api.request('POST', '/api/add-git-providers', {
      as: 'mallory',
      json: {
        provider_tokens: { forgejo: { token: '', host: 'code.example.com' } },
        mcp_config: { shttp_servers: [{ url: 'https://tools.example.com/mcp' }] },
      },
    });
    expect(response.status).toBe(200);
    const got = await api.request('GET', '/api/settings', { as: 'mallory' });
    expect(got.json.provider_tokens_set).toEqual({});
    expect(got.json.mcp_config.shttp_servers).toEqual([{ url: 'https://tools.example.com/mcp', api_key: null, api_key_set: false }]);
  });

  it('answers 422 for an unknown provider, naming it', async () => {
    const response = await api.request('POST', '/api/add-git-providers', { json: { provider_tokens: { sourcehut: { token: 'x' } } } });
    expect(response.status).toBe(422);
    expect(response.json.detail[0].loc).toEqual(['body', 'provider_tokens', 'sourcehut']);
  });

  it('unsets one provider, then all, with or without a body', async () => {
    await api.request('POST', '/api/add-git-providers', {
      as: 'bob',
      json: { provider_tokens: { github: { token: 'a-token' }, gitlab: { token: 'b-token' } } },
    });
    const one = await api.request('POST', '/api/unset-provider-tokens', { as: 'bob', json: { providers: ['gitlab'] } });
    expect(one.status).toBe(200);
    expect(Object.keys((await api.request('GET', '/api/settings', { as: 'bob' })).json.provider_tokens_set)).toEqual(['github']);
    const all = await api.request('POST', '/api/unset-provider-tokens', { as: 'bob' });
    expect(all.status).toBe(200);
    expect((await api.request('GET', '/api/settings', { as: 'bob' })).json.provider_tokens_set).toEqual({});
    const emptyJson = await api.request('POST', '/api/unset-provider-tokens', { as: 'bob', headers: { 'content-type': 'application/json' } });
    expect(emptyJson.status).toBe(200);
  });
});
