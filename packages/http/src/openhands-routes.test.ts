/**
 * The OpenHands app-server endpoints over HTTP: the current key, V1 settings, custom
 * secrets, conversation rename / delete / download / file, the automation health and prompt
 * preset — and the published `CloudClient` driving them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommandAgentRunner, type SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { CloudClient } from '@openhands/typescript-client/clients';
import { strFromU8, unzipSync } from 'fflate';
import type { z } from 'zod';
import { createFetchHandler } from './fetch.js';
import { allRoutes } from './handler.js';
import { Router } from './routing/router.js';
import { ALL_BINDINGS, KEYS, startHarness, type Harness } from '../test-support/harness.js';

// Writes a note in its workspace, prints its task, its LLM key and a custom secret, and sleeps when asked.
const AGENT = [
  'mkdir -p notes && printf "note for %s\\n" "$AGENT_PLATFORM_CONVERSATION_ID" > notes/note.txt',
  'echo "task: $AGENT_PLATFORM_INSTRUCTIONS"',
  'echo "key=$LLM_API_KEY token=$DEPLOY_TOKEN"',
  'case "$AGENT_PLATFORM_INSTRUCTIONS" in *sleep*) sleep 30;; esac',
].join('; ');
const LLM_KEY = 'sk-openhands-routes-llm-key';
const SECRET = 'deploy-token-value-0042';

async function waitForTask(api: Harness, taskId: string): Promise<{ status: string; app_conversation_id: string; sandbox_id: string }> {
  for (let i = 0; i < 400; i++) {
    const [task] = (await api.request('GET', `/api/v1/app-conversations/start-tasks?ids=${taskId}`)).json;
    if (task.status === 'READY' || task.status === 'ERROR') return task;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the start task did not finish');
}

async function startConversation(api: Harness, message: string): Promise<{ id: string; taskId: string; sandboxId: string }> {
  const started = await api.request('POST', '/api/v1/app-conversations', { json: { initial_message: message, title: 'openhands' } });
  expect(started.status).toBe(200);
  const task = await waitForTask(api, started.json.id);
  expect(task.status).toBe('READY');
  return { id: task.app_conversation_id, taskId: started.json.id, sandboxId: task.sandbox_id };
}

describe('OpenHands app-server endpoints', () => {
  let api: Harness;
  let runtime: SandboxRuntime;
  beforeAll(async () => {
    runtime = createProcessRuntime();
    api = await startHarness('node', { platform: { runtime, agent: createCommandAgentRunner({ command: AGENT }) } });
  });
  afterAll(async () => {
    await api.platform.stop();
    await api.close();
    await runtime.close();
  });

  describe('GET /api/keys/current', () => {
    it('answers the stored key the request used, never the key, with either header', async () => {
      const mine = await api.request('GET', '/api/keys/current');
      expect(mine.status).toBe(200);
      expect(mine.json).toMatchObject({ id: expect.any(String), name: expect.any(String), org_id: 'acme', user_id: 'alice', auth_type: 'api_key' });
      expect(mine.text).not.toContain(KEYS.alice);
      const bearer = await api.request('GET', '/api/keys/current', { as: null, headers: { authorization: `Bearer ${KEYS.mallory}` } });
      expect(bearer.json).toMatchObject({ org_id: 'evil', user_id: 'mallory', auth_type: 'api_key' });
      expect(bearer.json.id).not.toBe(mine.json.id);
      expect((await api.request('GET', '/api/keys/current', { as: null })).status).toBe(401);
      // The static path wins over /api/keys/{id} (DELETE only).
      expect((await api.request('DELETE', '/api/keys/current')).status).toBe(405);
    });

    it('answers 404 when a host-provided authenticator, not a stored key, let the request in', async () => {
      const hosted = await startHarness('node', {
        platform: { auth: { authenticate: async ({ apiKey }) => (apiKey === 'host-issued-token' ? { userId: 'zed', orgId: 'z' } : null) } },
      });
      const answer = await hosted.request('GET', '/api/keys/current', { as: null, headers: { authorization: 'Bearer host-issued-token' } });
      expect(answer.status).toBe(404);
      expect(answer.json.detail).toContain('not authenticated with an API key stored by the platform');
      await hosted.close();
    });
  });

  describe('/api/v1/settings', () => {
    it('answers the defaults first, then saves partial diffs; the key is never shown', async () => {
      const local = await startHarness('node');
      const first = await local.request('GET', '/api/v1/settings');
      expect(first.status).toBe(200);
      expect(first.json).toMatchObject({
        llm_model: null,
        llm_api_key_set: false,
        agent_settings: { llm: { model: null } },
        conversation_settings: { max_iterations: null },
      });
      await local.request('POST', '/api/settings', { json: { git_user_name: 'Alice', language: 'de' } });
      const saved = await local.request('POST', '/api/v1/settings', {
        json: {
          agent_settings_diff: { llm: { model: 'openai/gpt-4o', api_key: LLM_KEY }, condenser: { enabled: false } },
          conversation_settings_diff: { max_iterations: 9 },
          enable_sound_notifications: true,
        },
      });
      expect(saved.status).toBe(200);
      expect(saved.json).toEqual({ message: 'Settings stored' });
      const after = await local.request('GET', '/api/v1/settings');
      expect(after.json).toMatchObject({
        llm_model: 'openai/gpt-4o',
        llm_api_key: null,
        llm_api_key_set: true,
        enable_default_condenser: false,
        enable_sound_notifications: true,
        max_iterations: 9,
        git_user_name: 'Alice',
        language: 'de',
        agent_settings: { llm: { model: 'openai/gpt-4o', base_url: null }, condenser: { enabled: false } },
        conversation_settings: { max_iterations: 9 },
      });
      expect(after.text).not.toContain(LLM_KEY);
      expect((await local.request('GET', '/api/settings')).json).toMatchObject({ llm_model: 'openai/gpt-4o', git_user_name: 'Alice' });
      // Someone else's settings are their own.
      expect((await local.request('GET', '/api/v1/settings', { as: 'bob' })).json).toMatchObject({ llm_model: null, llm_api_key_set: false });
      await local.close();
    });

    it('answers 422 for bad values, unknown fields and whole agent_settings; 401 without a key', async () => {
      for (const [json, loc] of [
        [{ max_iterations: 'many' }, ['body', 'max_iterations']],
        [{ made_up: 1 }, ['body', 'made_up']],
        [{ agent_settings: {} }, ['body', 'agent_settings']],
        [{ agent_settings_diff: { condenser: { max_size: 50 } } }, ['body', 'agent_settings_diff', 'condenser', 'max_size']],
        [{ agent_settings_diff: { llm: { model: 'a' } }, llm_model: 'b' }, ['body', 'agent_settings_diff', 'llm', 'model']],
      ] as const) {
        const answer = await api.request('POST', '/api/v1/settings', { json });
        expect(answer.status, JSON.stringify(json)).toBe(422);
        expect(answer.json.detail[0].loc).toEqual(loc);
      }
      expect((await api.request('POST', '/api/v1/settings', { body: 'null', headers: { 'content-type': 'application/json' } })).status).toBe(422);
      expect((await api.request('GET', '/api/v1/settings', { as: null })).status).toBe(401);
      expect((await api.request('POST', '/api/v1/settings', { as: null, json: {} })).status).toBe(401);
    });

    it('serves the JSON Schemas of both diffs', async () => {
      const agent = await api.request('GET', '/api/v1/settings/agent-schema');
      expect(agent.status).toBe(200);
      expect(agent.json).toMatchObject({ type: 'object', model_name: 'AgentSettings', properties: { llm: expect.any(Object), condenser: expect.any(Object) } });
      expect(agent.json.sections.map((section: { key: string }) => section.key)).toEqual(['llm', 'condenser', 'agent']);
      const conversation = await api.request('GET', '/api/v1/settings/conversation-schema');
      expect(Object.keys(conversation.json.properties)).toEqual(['confirmation_mode', 'security_analyzer', 'max_iterations']);
    });
  });

  describe('/api/v1/secrets', () => {
    it('creates, lists (names only), renames, re-describes and deletes; never echoes a value', async () => {
      const created = await api.request('POST', '/api/v1/secrets', { json: { name: 'DRAFT_TOKEN', value: 'draft-value-123', description: 'draft' } });
      expect(created.status).toBe(201);
      expect(created.text).not.toContain('draft-value-123');
      expect((await api.request('POST', '/api/v1/secrets', { json: { name: 'DRAFT_TOKEN', value: 'other' } })).status).toBe(409);
      const invalid = await api.request('POST', '/api/v1/secrets', { json: { name: '9lives', value: 'v' } });
      expect(invalid.status).toBe(422);
      expect(invalid.json.detail[0].loc).toEqual(['body', 'name']);
      expect((await api.request('POST', '/api/v1/secrets', { json: { name: 'NO_VALUE' } })).status).toBe(422);

      const renamed = await api.request('PUT', '/api/v1/secrets/DRAFT_TOKEN', { json: { name: 'FINAL_TOKEN', description: 'final' } });
      expect(renamed.status).toBe(200);
      expect((await api.request('PUT', '/api/v1/secrets/DRAFT_TOKEN', { json: { name: 'X' } })).status).toBe(404);
      await api.request('POST', '/api/v1/secrets', { json: { name: 'TAKEN', value: 't' } });
      expect((await api.request('PUT', '/api/v1/secrets/FINAL_TOKEN', { json: { name: 'TAKEN' } })).status).toBe(409);

      const listed = await api.request('GET', '/api/v1/secrets/search');
      expect(listed.status).toBe(200);
      expect(listed.json.items).toEqual(
        expect.arrayContaining([
          { name: 'FINAL_TOKEN', description: 'final' },
          { name: 'TAKEN', description: null },
        ]),
      );
      expect(listed.text).not.toContain('draft-value-123');
      expect((await api.platform.settings.agentSettings('alice')).customSecrets.FINAL_TOKEN).toBe('draft-value-123');

      expect((await api.request('DELETE', '/api/v1/secrets/TAKEN')).status).toBe(200);
      expect((await api.request('DELETE', '/api/v1/secrets/TAKEN')).status).toBe(404);
      expect((await api.request('DELETE', '/api/v1/secrets/FINAL_TOKEN')).status).toBe(200);
    });

    it('keeps each user’s secrets their own, pages them, and refuses a page id it did not hand out', async () => {
      await Promise.all(
        ['ONE', 'TWO', 'THREE'].map((name) => api.request('POST', '/api/v1/secrets', { as: 'bob', json: { name: `BOB_${name}`, value: `bob-${name}` } })),
      );
      const first = await api.request('GET', '/api/v1/secrets/search?limit=2', { as: 'bob' });
      expect(first.json.items.map((item: { name: string }) => item.name)).toEqual(['BOB_ONE', 'BOB_THREE']);
      const second = await api.request('GET', `/api/v1/secrets/search?limit=2&page_id=${first.json.next_page_id}`, { as: 'bob' });
      expect(second.json).toEqual({ items: [{ name: 'BOB_TWO', description: null }], next_page_id: null });
      expect((await api.request('GET', '/api/v1/secrets/search?name__contains=three', { as: 'bob' })).json.items).toEqual([
        { name: 'BOB_THREE', description: null },
      ]);
      expect((await api.request('GET', '/api/v1/secrets/search', { as: 'mallory' })).json.items).toEqual([]);
      expect((await api.request('DELETE', '/api/v1/secrets/BOB_ONE', { as: 'alice' })).status).toBe(404);
      expect((await api.request('PUT', '/api/v1/secrets/BOB_ONE', { as: 'mallory', json: { name: 'MINE' } })).status).toBe(404);
      const badPage = await api.request('GET', '/api/v1/secrets/search?page_id=not-a-page', { as: 'bob' });
      expect(badPage.status).toBe(422);
      expect(badPage.json.detail[0].loc).toEqual(['query', 'page_id']);
      expect((await api.request('GET', '/api/v1/secrets/search', { as: null })).status).toBe(401);
      // The static search path wins: a secret named "search" is not reachable by PUT or DELETE.
      expect((await api.request('DELETE', '/api/v1/secrets/search', { as: 'bob' })).status).toBe(405);
    });
  });

  describe('app conversations', () => {
    beforeAll(async () => {
      await api.request('POST', '/api/settings', { json: { llm_model: 'demo/model', llm_api_key: LLM_KEY } });
      await api.request('POST', '/api/v1/secrets', { json: { name: 'DEPLOY_TOKEN', value: SECRET } });
    });

    it('renames with PATCH, and refuses public sharing', async () => {
      const { id } = await startConversation(api, 'rename me');
      const renamed = await api.request('PATCH', `/api/v1/app-conversations/${id}`, { json: { title: 'a better title' } });
      expect(renamed.status).toBe(200);
      expect(renamed.json).toMatchObject({ id, title: 'a better title' });
      expect((await api.request('PATCH', `/api/v1/app-conversations/${id}`, { json: { public: false } })).status).toBe(422);
      const shared = await api.request('PATCH', `/api/v1/app-conversations/${id}`, { json: { public: true } });
      expect(shared.status).toBe(422);
      expect(shared.json.detail[0]).toMatchObject({ loc: ['body', 'public'], msg: 'public sharing is not supported by this platform' });
      expect((await api.request('PATCH', `/api/v1/app-conversations/${id}`, { json: { title: 7 } })).status).toBe(422);
      expect((await api.request('PATCH', `/api/v1/app-conversations/${id}`, { as: 'bob', json: { title: 'x' } })).status).toBe(404);
      expect((await api.request('GET', `/api/v1/app-conversations/${id}`)).json.title).toBe('a better title');
    });

    it('downloads a zip of the events: meta.json and event-NNNNN-<id>.json, no secret in it', async () => {
      const { id } = await startConversation(api, 'export me');
      await api.platform.conversations.settled();
      const response = await fetch(`${api.baseUrl}/api/v1/app-conversations/${id}/download`, { headers: { 'x-session-api-key': KEYS.alice } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/zip');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="conversation_${id}.zip"`);
      const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
      const events = (await api.request('GET', `/api/v1/app-conversations/${id}/events`)).json.items as { id: string; seq: number }[];
      expect(Object.keys(files).sort()).toEqual(['meta.json', ...events.map((event) => `event-${String(event.seq).padStart(5, '0')}-${event.id}.json`)].sort());
      expect(JSON.parse(strFromU8(files['meta.json'] as Uint8Array))).toMatchObject({ id, title: 'openhands', event_count: events.length });
      const texts = Object.values(files)
        .map((bytes) => strFromU8(bytes))
        .join('\n');
      expect(texts).toContain('task: export me');
      expect(texts).not.toContain(LLM_KEY);
      expect(texts).not.toContain(SECRET);
      expect((await api.request('GET', `/api/v1/app-conversations/${id}/download`, { as: 'bob' })).status).toBe(404);
      expect((await api.request('GET', `/api/v1/app-conversations/conv_unknown/download`)).status).toBe(404);
    });

    it('reads a workspace file as text; 404 missing, 422 outside, 413 too large, 409 when the sandbox is gone', async () => {
      const { id, sandboxId } = await startConversation(api, 'write a note');
      await api.platform.conversations.settled();
      const note = await api.request('GET', `/api/v1/app-conversations/${id}/file?file_path=notes/note.txt`);
      expect(note.status).toBe(200);
      expect(note.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(note.text).toBe(`note for ${id}\n`);
      const { workingDir } = await runtime.inspect(sandboxId);
      expect((await api.request('GET', `/api/v1/app-conversations/${id}/file?file_path=${encodeURIComponent(`${workingDir}/notes/note.txt`)}`)).text).toBe(
        `note for ${id}\n`,
      );
      const missing = await api.request('GET', `/api/v1/app-conversations/${id}/file?file_path=notes/nothing.txt`);
      expect(missing.status).toBe(404);
      expect(missing.json.detail).toContain('No file at');
      for (const path of ['../../etc/passwd', '/etc/passwd', 'notes']) {
        const refused = await api.request('GET', `/api/v1/app-conversations/${id}/file?file_path=${encodeURIComponent(path)}`);
        expect(refused.status, path).toBe(422);
        expect(refused.json.detail[0].loc).toEqual(['query', 'file_path']);
      }
      expect((await api.request('GET', `/api/v1/app-conversations/${id}/file`)).status).toBe(422);
      for await (const _ of runtime.exec(sandboxId, { command: 'head -c 10485761 /dev/zero > notes/big.bin' }));
      expect((await api.request('GET', `/api/v1/app-conversations/${id}/file?file_path=notes/big.bin`)).status).toBe(413);
      expect((await api.request('GET', `/api/v1/app-conversations/${id}/file?file_path=notes/note.txt`, { as: 'mallory' })).status).toBe(404);
      expect((await api.request('DELETE', `/api/v1/sandboxes/${sandboxId}`)).status).toBe(200);
      const gone = await api.request('GET', `/api/v1/app-conversations/${id}/file?file_path=notes/note.txt`);
      expect(gone.status).toBe(409);
      expect(gone.json.detail).toContain('gone');
    });

    it('deletes a conversation with its events, start task and sandbox; 404 for others’ and unknown ones', async () => {
      const { id, taskId, sandboxId } = await startConversation(api, 'delete me');
      await api.platform.conversations.settled();
      expect((await api.request('DELETE', `/api/v1/app-conversations/${id}`, { as: 'bob' })).status).toBe(404);
      expect((await api.request('DELETE', `/api/v1/app-conversations/${id}`, { as: 'mallory' })).status).toBe(404);
      const deleted = await api.request('DELETE', `/api/v1/app-conversations/${id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.json).toEqual({ success: true });
      expect((await api.request('GET', `/api/v1/app-conversations/${id}`)).status).toBe(404);
      expect((await api.request('GET', `/api/v1/app-conversations/${id}/events`)).status).toBe(404);
      expect((await api.request('GET', `/api/v1/app-conversations/start-tasks?ids=${taskId}`)).json).toEqual([null]);
      expect((await api.request('GET', `/api/v1/sandboxes?id=${sandboxId}`)).json).toEqual([null]);
      expect((await runtime.inspect(sandboxId)).status).toBe('MISSING');
      expect((await api.request('DELETE', `/api/v1/app-conversations/${id}`)).status).toBe(404);
    });

    it('stops a running agent when its conversation is deleted', async () => {
      const { id, sandboxId } = await startConversation(api, 'sleep for a while');
      expect((await api.request('GET', `/api/v1/app-conversations/${id}`)).json.execution_status).toBe('running');
      expect((await api.request('DELETE', `/api/v1/app-conversations/${id}`)).status).toBe(200);
      await api.platform.conversations.settled();
      expect((await api.request('GET', `/api/v1/app-conversations/${id}`)).status).toBe(404);
      expect((await runtime.inspect(sandboxId)).status).toBe('MISSING');
      expect(api.logs).toEqual([]);
    });
  });

  describe('the automation service', () => {
    it('answers its health without credentials', async () => {
      const health = await api.request('GET', '/api/automation/health', { as: null });
      expect(health.status).toBe(200);
      expect(health.json).toEqual({ status: 'ok', storage: 'ok', pending_runs: expect.any(Number) });
    });

    it('creates through the prompt preset: prompt → instructions, model → llm_model, timeout → timeout_seconds', async () => {
      const trigger = { type: 'event', source: 'github', on: 'pull_request.opened', filter: "repository.full_name == 'acme/app'" };
      const created = await api.request('POST', '/api/automation/v1/preset/prompt', {
        json: { name: 'review PRs', prompt: 'Review the pull request', trigger, model: 'anthropic/claude-sonnet-4', timeout: 600 },
      });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({
        name: 'review PRs',
        instructions: 'Review the pull request',
        llm_model: 'anthropic/claude-sonnet-4',
        timeout_seconds: 600,
        enabled: true,
        trigger,
        org_id: 'acme',
        created_by: 'alice',
      });
      expect((await api.request('GET', `/api/automation/v1/${created.json.id}`, { as: 'bob' })).json.id).toBe(created.json.id);
      expect((await api.request('GET', `/api/automation/v1/${created.json.id}`, { as: 'mallory' })).status).toBe(404);
    });

    it('answers 422 for a cron trigger, an unknown field or a missing prompt; 401 without a key', async () => {
      for (const [json, loc] of [
        [{ name: 'n', prompt: 'p', trigger: { type: 'cron', schedule: '0 3 * * *' } }, ['body', 'trigger', 'type']],
        [{ name: 'n', prompt: 'p', trigger: { type: 'event', source: 'github', on: 'push' }, instructions: 'x' }, ['body', 'instructions']],
        [{ name: 'n', trigger: { type: 'event', source: 'github', on: 'push' } }, ['body', 'prompt']],
        [{ name: 'n', prompt: 'p', trigger: { type: 'event', source: 'github', on: 'push' }, timeout: 0 }, ['body', 'timeout']],
      ] as const) {
        const answer = await api.request('POST', '/api/automation/v1/preset/prompt', { json });
        expect(answer.status, JSON.stringify(json)).toBe(422);
        expect(answer.json.detail[0].loc).toEqual(loc);
      }
      expect((await api.request('POST', '/api/automation/v1/preset/prompt', { as: null, json: {} })).status).toBe(401);
    });
  });

  it('answers JSON bodies that are exactly their routes’ declared success schemas', async () => {
    const { id } = await startConversation(api, 'schemas');
    await api.request('POST', '/api/v1/secrets', { as: 'mallory', json: { name: 'SCHEMA_CHECK', value: 'v', description: 'd' } });
    const calls: [string, string, Parameters<Harness['request']>[2]?][] = [
      ['GET', '/api/keys/current'],
      ['GET', '/api/v1/settings'],
      ['POST', '/api/v1/settings', { json: { conversation_settings_diff: { max_iterations: 3 } } }],
      ['GET', '/api/v1/settings/agent-schema'],
      ['GET', '/api/v1/settings/conversation-schema'],
      ['GET', '/api/v1/secrets/search', { as: 'mallory' }],
      ['PUT', '/api/v1/secrets/SCHEMA_CHECK', { as: 'mallory', json: { name: 'SCHEMA_CHECK' } }],
      ['PATCH', `/api/v1/app-conversations/${id}`, { json: { title: 'checked' } }],
      ['GET', '/api/automation/health', { as: null }],
      ['POST', '/api/automation/v1/preset/prompt', { json: { name: 'n', prompt: 'p', trigger: { type: 'event', source: 'github', on: 'push' } } }],
      ['DELETE', '/api/v1/secrets/SCHEMA_CHECK', { as: 'mallory' }],
      ['DELETE', `/api/v1/app-conversations/${id}`],
    ];
    const router = new Router(allRoutes());
    for (const [method, path, init] of calls) {
      const answer = await api.request(method, path, init);
      expect(answer.status, `${method} ${path}`).toBeLessThan(300);
      const match = router.match(method, path);
      if (match.kind !== 'found') throw new Error(`no route for ${method} ${path}`);
      const schema = match.route.responses[answer.status]?.schema as z.ZodType;
      const parsed = schema.safeParse(answer.json);
      expect(parsed.error, `${method} ${path}`).toBeUndefined();
      expect(parsed.data, `${method} ${path}: fields the schema does not describe`).toEqual(answer.json);
    }
  });

  it('the CloudClient drives every one of these endpoints', async () => {
    const client = new CloudClient({ host: api.baseUrl, apiKey: KEYS.bob });
    expect(await client.getCurrentApiKey()).toMatchObject({ user_id: 'bob', org_id: 'acme', auth_type: 'api_key' });
    expect(await client.getAutomationHealth()).toMatchObject({ status: 'ok' });

    await client.saveSettings({
      agent_settings_diff: { llm: { model: 'openai/gpt-4o-mini', api_key: 'sk-bob-cloud-client' } },
      conversation_settings_diff: { confirmation_mode: false, max_iterations: 4 },
      app_preferences: { git_user_name: 'Bob' },
    });
    const settings = await client.getSettings();
    expect(settings).toMatchObject({ llm_model: 'openai/gpt-4o-mini', llm_api_key_set: true, max_iterations: 4, git_user_name: 'Bob' });
    expect(JSON.stringify(settings)).not.toContain('sk-bob-cloud-client');
    const derived = await client.getSettingsWithDerivedFields();
    expect(derived.agent_settings).toMatchObject({ llm: { model: 'openai/gpt-4o-mini' } });
    expect(derived.conversation_settings).toMatchObject({ max_iterations: 4, confirmation_mode: false });
    expect((await client.getSettingsSchema()).model_name).toBe('AgentSettings');
    expect((await client.getConversationSettingsSchema()).model_name).toBe('ConversationSettings');

    await client.createSecret('CLIENT_DRAFT', 'client-secret-value', 'draft');
    await client.updateSecret('CLIENT_DRAFT', 'DEPLOY_TOKEN', 'the deploy token');
    await client.createSecret('CLIENT_GONE', 'x');
    await client.deleteSecret('CLIENT_GONE');
    const secrets = await client.listSecrets();
    expect(secrets.filter((secret) => secret.name.startsWith('DEPLOY') || secret.name.startsWith('CLIENT'))).toEqual([
      { name: 'DEPLOY_TOKEN', description: 'the deploy token' },
    ]);
    expect(JSON.stringify(secrets)).not.toContain('client-secret-value');

    const task = await client.createConversation({
      initial_message: { role: 'user', content: [{ type: 'text', text: 'client task' }], run: true },
      title: 'from the client',
    });
    let ready = await client.getConversationStartTask(task.id);
    for (let i = 0; i < 400 && !['READY', 'ERROR'].includes(String(ready?.status)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      ready = await client.getConversationStartTask(task.id);
    }
    expect(ready?.status).toBe('READY');
    const conversationId = String(ready?.app_conversation_id);
    await api.platform.conversations.settled();
    expect(await client.readConversationFile(conversationId, 'notes/note.txt')).toBe(`note for ${conversationId}\n`);
    const zip = await client.downloadConversation(conversationId);
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const texts = Object.values(files)
      .map((bytes) => strFromU8(bytes))
      .join('\n');
    expect(texts).toContain('client task');
    expect(texts).toContain('token=[redacted]');
    expect(texts).not.toContain('client-secret-value');
    expect(texts).not.toContain('sk-bob-cloud-client');
    await expect(client.updateConversationPublicFlag(conversationId, true)).rejects.toMatchObject({ status: 422 });
    await client.deleteConversation(conversationId);
    expect(await client.getConversations([conversationId])).toEqual([null]);
    await expect(client.deleteConversation(conversationId)).rejects.toMatchObject({ status: 404 });

    const automation = await client.post<{ id: string; instructions: string }>('/api/automation/v1/preset/prompt', {
      name: 'from the client',
      prompt: 'Say hello',
      trigger: { type: 'event', source: 'github', on: 'push' },
      timeout: 60,
    });
    expect(automation.instructions).toBe('Say hello');
    expect(await client.getAutomation(automation.id)).toMatchObject({ id: automation.id, timeout_seconds: 60 });
    await client.deleteAutomation(automation.id);
    client.close();
  });
});

describe.each(ALL_BINDINGS)('non-JSON answers on %s', (binding) => {
  let api: Harness;
  let runtime: SandboxRuntime;
  beforeAll(async () => {
    runtime = createProcessRuntime();
    api = await startHarness(binding, { platform: { runtime, agent: createCommandAgentRunner({ command: AGENT }) } });
  });
  afterAll(async () => {
    await api.platform.stop();
    await api.close();
    await runtime.close();
  });

  it('sends the zip’s bytes and the file’s text unchanged, the errors as JSON', async () => {
    const { id } = await startConversation(api, 'bytes');
    await api.platform.conversations.settled();
    const expected = await api.platform.conversations.download({ userId: 'alice', orgId: 'acme' }, id);
    const response = await fetch(`${api.baseUrl}/api/v1/app-conversations/${id}/download`, { headers: { authorization: `Bearer ${KEYS.alice}` } });
    expect(response.headers.get('content-type')).toBe('application/zip');
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(Object.keys(unzipSync(expected.bytes)).sort());
    const note = await api.request('GET', `/api/v1/app-conversations/${id}/file?file_path=notes/note.txt`);
    expect([note.status, note.headers.get('content-type'), note.text]).toEqual([200, 'text/plain; charset=utf-8', `note for ${id}\n`]);
    const missing = await api.request('GET', `/api/v1/app-conversations/${id}/file?file_path=nothing`);
    expect([missing.status, missing.headers.get('content-type')]).toEqual([404, 'application/json; charset=utf-8']);
  });
});

describe('non-JSON answers through the fetch handler', () => {
  it('answers the zip as bytes', async () => {
    const runtime = createProcessRuntime();
    const api = await startHarness('node', { platform: { runtime } });
    const { id } = await startConversation(api, 'fetch me');
    const handler = createFetchHandler(api.platform);
    const response = await handler(
      new Request(`http://platform.test/api/v1/app-conversations/${id}/download`, { headers: { authorization: `Bearer ${KEYS.alice}` } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="conversation_${id}.zip"`);
    expect(Object.keys(unzipSync(new Uint8Array(await response.arrayBuffer())))).toContain('meta.json');
    await api.close();
    await runtime.close();
  });
});
