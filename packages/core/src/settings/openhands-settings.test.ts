import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, PlatformError } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';

function setup() {
  const storage = createMemoryStorage();
  const platform = createAgentPlatform({ storage, secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }), publicUrl: 'http://localhost' });
  return { storage, platform, alice: { userId: 'alice', orgId: 'acme' } };
}

async function issueOf(promise: Promise<unknown>): Promise<{ status: number; loc: unknown; msg: string }> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  const platformError = error as PlatformError;
  return { status: platformError.status, loc: platformError.issues?.[0]?.loc, msg: platformError.issues?.[0]?.msg ?? platformError.message };
}

describe('settings in the OpenHands V1 shape', () => {
  it('answers the defaults before anything is stored, with the nested views', async () => {
    const { platform, alice } = setup();
    await expect(platform.settings.get(alice)).rejects.toMatchObject({ status: 404 });
    const view = await platform.settings.openHandsView(alice);
    expect(view).toMatchObject({
      llm_model: null,
      llm_api_key: null,
      llm_api_key_set: false,
      search_api_key_set: false,
      provider_tokens_set: {},
      enable_default_condenser: true,
      agent_settings: { llm: { model: null, base_url: null }, condenser: { enabled: true }, agent: null, mcp_config: null },
      conversation_settings: { confirmation_mode: null, security_analyzer: null, max_iterations: null },
    });
    expect(view.agent_settings.llm).not.toHaveProperty('api_key');
  });

  it('maps the diffs onto the flat fields, and changes only what the body names', async () => {
    const { storage, platform, alice } = setup();
    await platform.settings.store(alice, { git_user_name: 'Alice', language: 'fr', max_budget_per_task: 3, enable_sound_notifications: true });
    await platform.settings.saveOpenHands(alice, {
      agent_settings_diff: {
        llm: { model: 'openai/gpt-4o', base_url: 'http://llm.local/v1', api_key: 'sk-v1-secret' },
        condenser: { enabled: false },
        agent: 'llm',
        mcp_config: { sse_servers: [{ url: 'https://mcp.example.com', api_key: 'mcp-secret' }] },
      },
      conversation_settings_diff: { confirmation_mode: true, security_analyzer: 'llm', max_iterations: 12 },
      email: 'alice@example.com',
    });
    const view = await platform.settings.openHandsView(alice);
    expect(view).toMatchObject({
      llm_model: 'openai/gpt-4o',
      llm_base_url: 'http://llm.local/v1',
      llm_api_key: null,
      llm_api_key_set: true,
      enable_default_condenser: false,
      agent: 'llm',
      confirmation_mode: true,
      security_analyzer: 'llm',
      max_iterations: 12,
      email: 'alice@example.com',
      // Untouched by the partial update.
      git_user_name: 'Alice',
      language: 'fr',
      max_budget_per_task: 3,
      enable_sound_notifications: true,
      agent_settings: { llm: { model: 'openai/gpt-4o', base_url: 'http://llm.local/v1' }, condenser: { enabled: false }, agent: 'llm' },
      conversation_settings: { confirmation_mode: true, security_analyzer: 'llm', max_iterations: 12 },
    });
    expect(view.agent_settings.mcp_config?.sse_servers).toEqual([{ url: 'https://mcp.example.com', api_key: null, api_key_set: true }]);
    const text = JSON.stringify(view) + JSON.stringify(await storage.settings.get('alice'));
    expect(text).not.toContain('sk-v1-secret');
    expect(text).not.toContain('mcp-secret');
    const agent = await platform.settings.agentSettings('alice');
    expect(agent).toMatchObject({
      llmApiKey: 'sk-v1-secret',
      llmModel: 'openai/gpt-4o',
      enableDefaultCondenser: false,
      maxIterations: 12,
      confirmationMode: true,
    });

    // A later save naming one field changes that one: the MCP config (with its sealed key) and the rest stay.
    await platform.settings.saveOpenHands(alice, { conversation_settings_diff: { max_iterations: 5 } });
    const later = await platform.settings.openHandsView(alice);
    expect(later).toMatchObject({
      max_iterations: 5,
      confirmation_mode: true,
      llm_model: 'openai/gpt-4o',
      llm_api_key_set: true,
      git_user_name: 'Alice',
      enable_default_condenser: false,
    });
    expect((await platform.settings.agentSettings('alice')).mcpConfig?.sse_servers[0]?.api_key).toBe('mcp-secret');
    // An empty body changes nothing; "" clears the key; a null (sticky) model keeps it.
    await platform.settings.saveOpenHands(alice, undefined);
    await platform.settings.saveOpenHands(alice, { agent_settings_diff: { llm: { api_key: '', model: null } } });
    expect(await platform.settings.openHandsView(alice)).toMatchObject({ llm_api_key_set: false, llm_model: 'openai/gpt-4o', max_iterations: 5 });
  });

  it('accepts the read-only fields of its own answer back (a GET → edit → POST round trip) and ignores them', async () => {
    const { platform, alice } = setup();
    await platform.settings.saveOpenHands(alice, { agent_settings_diff: { llm: { model: 'm', api_key: 'sk-keep' } } });
    const { agent_settings: _agent, conversation_settings: _conversation, ...flat } = await platform.settings.openHandsView(alice);
    await platform.settings.saveOpenHands(alice, { ...flat, git_user_email: 'a@example.com', llm_api_key_set: false, provider_tokens_set: { github: null } });
    expect(await platform.settings.openHandsView(alice)).toMatchObject({ llm_model: 'm', llm_api_key_set: true, git_user_email: 'a@example.com' });
  });

  it('refuses bad values, unknown fields, a field named twice, whole agent_settings and the condenser size (422)', async () => {
    const { platform, alice } = setup();
    const cases: [unknown, unknown[]][] = [
      [{ max_iterations: 0 }, ['body', 'max_iterations']],
      [{ not_a_setting: true }, ['body', 'not_a_setting']],
      [{ agent_settings_diff: { llm: { model: 42 } } }, ['body', 'agent_settings_diff', 'llm', 'model']],
      [{ agent_settings_diff: { llm: { timeout: 30 } } }, ['body', 'agent_settings_diff', 'llm', 'timeout']],
      [{ agent_settings_diff: { critic: { enabled: true } } }, ['body', 'agent_settings_diff', 'critic']],
      [{ agent_settings_diff: { condenser: { enabled: true, max_size: 80 } } }, ['body', 'agent_settings_diff', 'condenser', 'max_size']],
      [{ agent_settings_diff: { mcp_config: { sse_servers: [{ url: 'ftp://x' }] } } }, ['body', 'agent_settings_diff', 'mcp_config', 'sse_servers', 0, 'url']],
      [{ conversation_settings_diff: { max_iterations: -1 } }, ['body', 'conversation_settings_diff', 'max_iterations']],
      [{ llm_model: 'a', agent_settings_diff: { llm: { model: 'b' } } }, ['body', 'agent_settings_diff', 'llm', 'model']],
      [{ agent_settings: { llm: { model: 'x' } } }, ['body', 'agent_settings']],
      [{ conversation_settings: {} }, ['body', 'conversation_settings']],
      [[], ['body']],
      [null, ['body']],
    ];
    for (const [input, loc] of cases) {
      const issue = await issueOf(platform.settings.saveOpenHands(alice, input));
      expect(issue.status, JSON.stringify(input)).toBe(422);
      expect(issue.loc, JSON.stringify(input)).toEqual(loc);
    }
    expect((await issueOf(platform.settings.saveOpenHands(alice, { agent_settings: {} }))).msg).toContain('agent_settings_diff');
    expect((await issueOf(platform.settings.saveOpenHands(alice, { agent_settings_diff: { condenser: { max_size: 80 } } }))).msg).toContain('not configurable');
    // Nothing was stored by the refused saves.
    await expect(platform.settings.get(alice)).rejects.toMatchObject({ status: 404 });
  });

  it('documents the diffs as JSON Schema, with OpenHands’ model_name and sections', () => {
    const { platform } = setup();
    const agent = platform.settings.agentSettingsSchema();
    expect(agent).toMatchObject({
      $schema: expect.stringContaining('json-schema.org'),
      type: 'object',
      model_name: 'AgentSettings',
      additionalProperties: false,
    });
    expect(Object.keys(agent.properties)).toEqual(['llm', 'condenser', 'agent', 'mcp_config']);
    expect(agent.sections.map((section) => section.key)).toEqual(['llm', 'condenser', 'agent']);
    const sections = Object.fromEntries(agent.sections.map((section) => [section.key, section]));
    expect(sections.llm?.fields.map((field) => field.key)).toEqual(['llm.model', 'llm.base_url', 'llm.api_key']);
    expect(sections.llm?.fields[2]).toMatchObject({ label: 'API key', widget: 'password', secret: true, section_label: 'LLM' });
    expect(sections.condenser?.fields).toEqual([expect.objectContaining({ key: 'condenser.enabled', widget: 'boolean', label: 'Enable memory condensation' })]);
    expect(sections.agent?.fields.map((field) => field.key)).toEqual(['agent.agent']);
    const conversation = platform.settings.conversationSettingsSchema();
    expect(conversation.model_name).toBe('ConversationSettings');
    expect(conversation.sections).toEqual([
      expect.objectContaining({
        key: 'conversation',
        fields: [
          expect.objectContaining({ key: 'conversation.confirmation_mode', widget: 'boolean' }),
          expect.objectContaining({ key: 'conversation.security_analyzer', widget: 'text' }),
          expect.objectContaining({ key: 'conversation.max_iterations', widget: 'number' }),
        ],
      }),
    ]);
    expect(() => JSON.stringify(agent)).not.toThrow();
  });
});
