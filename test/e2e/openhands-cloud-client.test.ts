/**
 * The published `@openhands/typescript-client` `CloudClient` against the platform:
 * every method `docs/openhands-compatibility.md` lists as working is driven here, against the
 * real handler on a loopback socket and against the reference server, and the table itself is
 * held to the client's methods: a `CloudClient` method the table does not mention, a row marked
 * working that this test does not drive, or a driven method that stops working fails.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAgentRouter, createCommandAgentRunner } from '@agent-platform/core';
import { createLlmAgentRunner } from '@agent-platform/agent';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { startFakeLlmServer, type FakeLlmServer, type FakeLlmTurn, type RecordedLlmRequest } from '@agent-platform/testing/fake-llm';
import { CloudClient, ConversationClient } from '@openhands/typescript-client/clients';
import { unzipSync, strFromU8 } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, startHarness, type Harness } from '../../packages/http/test-support/harness.js';
import { root, startServer, stopServer, type RunningServer } from './support/reference-server.js';

const LLM_KEY = 'sk-openhands-compat-llm-key-4242';
const SECRET_VALUE = 'compat-secret-value-9f8e7d';

/** The rows of the compatibility table: method → whether it is marked as working. */
function compatibilityTable(): Map<string, boolean> {
  const text = readFileSync(path.join(root, 'docs/openhands-compatibility.md'), 'utf8');
  const rows = new Map<string, boolean>();
  for (const match of text.matchAll(/^\|\s*`(\w+)`[^|]*\|\s*(works|not served)\s*\|/gm)) rows.set(match[1] as string, match[2] === 'works');
  return rows;
}

/** Every public method of `CloudClient`, its own and inherited (the generic verbs included). */
function cloudClientMethods(): string[] {
  const names = new Set<string>();
  for (let proto = CloudClient.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      // `request`, `requestDirect`, ... are the client's plumbing; `profileBasePath` and
      // `buildUpstreamAuthHeaders` its helpers: not API methods.
      if (name === 'constructor' || typeof descriptor?.value !== 'function') continue;
      if (/^(request|requestDirect|requestThroughProxy|profileBasePath|buildUpstreamAuthHeaders)$/.test(name)) continue;
      names.add(name);
    }
  }
  return [...names].sort();
}

/** The fake model: writes a file that proves the custom secret reached the agent's environment, then finishes. */
function respond(request: RecordedLlmRequest): FakeLlmTurn {
  const messages = request.body.messages as { role: string }[];
  const step = messages.filter((message) => message.role === 'assistant').length;
  if (step === 0) {
    return {
      toolCalls: [
        {
          name: 'terminal',
          arguments: {
            command:
              'mkdir -p notes && if [ "$COMPAT_TOKEN" = "' +
              SECRET_VALUE +
              '" ]; then echo secret-present > notes/check.txt; else echo secret-missing > notes/check.txt; fi',
          },
        },
      ],
    };
  }
  if (step === 1) return { toolCalls: [{ name: 'finish', arguments: { message: 'wrote notes/check.txt' } }] };
  return { text: 'done' };
}

interface Target {
  baseUrl: string;
  key: string;
}

const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
  let value = await read();
  for (let i = 0; i < 600 && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  if (!done(value)) throw new Error(`${what}: ${JSON.stringify(value)}`);
  return value;
};

/**
 * Drives every working method once, in an order where each can see what the one before made;
 * answers the set of methods driven, which must be the table's "works" rows.
 */
async function driveEveryMethod(target: Target, llm: FakeLlmServer): Promise<Set<string>> {
  const client = new CloudClient({ host: target.baseUrl, apiKey: target.key });
  const driven = new Set<string>();
  const drive = async <T>(name: string, call: () => Promise<T>): Promise<T> => {
    try {
      const answer = await call();
      driven.add(name);
      return answer;
    } catch (error) {
      throw new Error(`CloudClient.${name} failed: ${(error as Error).message}`, { cause: error });
    }
  };

  // Keys and health.
  const key = await drive('getCurrentApiKey', () => client.getCurrentApiKey());
  expect(key).toMatchObject({ user_id: expect.any(String), id: expect.any(String) });
  expect(JSON.stringify(key)).not.toContain(target.key);
  const health = await drive('getAutomationHealth', () => client.getAutomationHealth());
  expect(health).toMatchObject({ status: 'ok' });

  // Settings: OpenHands' nested diff reaches our flat settings; the key is never shown.
  await drive('saveSettings', () =>
    client.saveSettings({
      agent_settings_diff: { llm: { model: 'openai/gpt-4o', base_url: `${llm.url}/v1`, api_key: LLM_KEY } },
      conversation_settings_diff: { max_iterations: 7, confirmation_mode: false },
    }),
  );
  const settings = await drive('getSettings', () => client.getSettings());
  expect(settings).toMatchObject({ llm_model: 'openai/gpt-4o', llm_api_key_set: true, max_iterations: 7 });
  expect(JSON.stringify(settings)).not.toContain(LLM_KEY);
  const derived = await drive('getSettingsWithDerivedFields', () => client.getSettingsWithDerivedFields());
  expect(derived.agent_settings).toMatchObject({ llm: { model: 'openai/gpt-4o' } });
  expect(derived.conversation_settings).toMatchObject({ max_iterations: 7 });
  expect(JSON.stringify(derived)).not.toContain(LLM_KEY);
  const agentSchema = await drive('getSettingsSchema', () => client.getSettingsSchema());
  expect(agentSchema).toBeTypeOf('object');
  const conversationSchema = await drive('getConversationSettingsSchema', () => client.getConversationSettingsSchema());
  expect(conversationSchema).toBeTypeOf('object');

  // Custom secrets: names only on the way out.
  await drive('createSecret', () => client.createSecret('COMPAT_DRAFT', 'draft-value', 'a draft'));
  await drive('updateSecret', () => client.updateSecret('COMPAT_DRAFT', 'COMPAT_TOKEN', 'the token the agent reads'));
  await client.createSecret('COMPAT_GONE', 'x');
  await drive('deleteSecret', () => client.deleteSecret('COMPAT_GONE'));
  // The value is set again under the final name: a rename keeps the value it had.
  await client.deleteSecret('COMPAT_TOKEN');
  await client.createSecret('COMPAT_TOKEN', SECRET_VALUE, 'the token the agent reads');
  const secrets = await drive('listSecrets', () => client.listSecrets());
  expect(secrets.map((secret) => secret.name).sort()).toEqual(['COMPAT_TOKEN']);
  expect(JSON.stringify(secrets)).not.toContain(SECRET_VALUE);

  // Automations: the OpenHands automation service's create path, then every automation method.
  const automation = (await client.post('/api/automation/v1/preset/prompt', {
    name: 'compat nightly',
    prompt: 'Say hello',
    trigger: { type: 'event', source: 'github', on: 'push' },
    timeout: 600,
  })) as { id: string; name: string };
  driven.add('post');
  expect(automation.name).toBe('compat nightly');
  const listed = await drive('listAutomations', () => client.listAutomations());
  expect(JSON.stringify(listed)).toContain(automation.id);
  expect(await drive('getAutomation', () => client.getAutomation(automation.id))).toMatchObject({ id: automation.id });
  expect(await drive('updateAutomation', () => client.updateAutomation(automation.id, { name: 'compat nightly 2' }))).toMatchObject({
    name: 'compat nightly 2',
  });
  const run = (await drive('dispatchAutomation', () => client.dispatchAutomation(automation.id))) as { id: string };
  expect(run.id).toEqual(expect.any(String));
  const runs = await drive('listAutomationRuns', () => client.listAutomationRuns(automation.id));
  expect(JSON.stringify(runs)).toContain(run.id);
  // The generic verbs reach any endpoint: a run is followed to its end with `get`.
  await until(
    () => client.get<{ status: string }>(`/api/automation/v1/runs/${run.id}`),
    (current) => ['COMPLETED', 'FAILED'].includes(current.status),
    'dispatched run',
  );
  driven.add('get');

  // A conversation: created with OpenHands' message shape, the agent runs in a sandbox.
  const task = await drive('createConversation', () =>
    client.createConversation({ initial_message: { role: 'user', content: [{ type: 'text', text: 'check the token' }], run: true }, title: 'compat' }),
  );
  const ready = await until(
    () => drive('getConversationStartTask', () => client.getConversationStartTask(task.id)),
    (current) => ['READY', 'ERROR'].includes(String(current?.status)),
    'start task',
  );
  expect(ready?.status).toBe('READY');
  const conversationId = String(ready?.app_conversation_id);
  const [conversation] = await drive('getConversations', () => client.getConversations([conversationId]));
  expect(conversation).toMatchObject({ id: conversationId });
  const finished = await until(
    () => client.getConversations([conversationId]).then(([current]) => current as unknown as { execution_status: string }),
    (current) => ['finished', 'error', 'stuck'].includes(current.execution_status),
    'conversation',
  );
  expect(finished.execution_status).toBe('finished');

  // OpenHands' V1 pairing: an agent-server `ConversationClient` built from the conversation's
  // `conversation_url` and `session_api_key` (its sandbox's key, while the sandbox runs).
  const [withKey] = await client.getConversations([conversationId]);
  expect(withKey?.session_api_key).toEqual(expect.any(String));
  expect(withKey?.conversation_url).toMatch(new RegExp(`/api/conversations/${conversationId}$`));
  // The agent server is what precedes `/api/conversations/{id}`; here the servers' public URL is
  // not the loopback address they listen on, so the path is taken onto it.
  const conversationPath = new URL(String(withKey?.conversation_url)).pathname;
  const agentServer = new ConversationClient({
    host: target.baseUrl + conversationPath.slice(0, -`/api/conversations/${conversationId}`.length),
    apiKey: String(withKey?.session_api_key),
  });
  expect(await agentServer.getConversation(conversationId)).toMatchObject({ id: conversationId });
  const agentEvents = await agentServer.searchEvents(conversationId);
  expect(JSON.stringify(agentEvents.items)).toContain('check the token');
  expect(agentEvents.items.map((event) => event.kind)).toContain('MessageEvent');
  const page = await drive('searchConversations', () => client.searchConversations());
  expect(page.items.map((item) => item.id)).toContain(conversationId);

  // The workspace, its sandbox, and the events as a zip.
  expect((await drive('readConversationFile', () => client.readConversationFile(conversationId, 'notes/check.txt'))).trim()).toBe('secret-present');
  const sandboxId = String((conversation as unknown as { sandbox_id: string }).sandbox_id);
  const [sandbox] = await drive('getSandboxes', () => client.getSandboxes([sandboxId]));
  expect(sandbox).toMatchObject({ id: sandboxId });
  await drive('pauseSandbox', () => client.pauseSandbox(sandboxId));
  // No key while the sandbox is not running.
  expect((await client.getConversations([conversationId]))[0]?.session_api_key).toBeNull();
  await drive('resumeSandbox', () => client.resumeSandbox(sandboxId));
  const zip = await drive('downloadConversation', () => client.downloadConversation(conversationId));
  const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
  const eventFiles = Object.keys(files).filter((name) => /event/.test(name));
  expect(eventFiles.length).toBeGreaterThan(2);
  const all = Object.values(files)
    .map((bytes) => strFromU8(bytes))
    .join('\n');
  expect(all).toContain('check the token');
  expect(all).not.toContain(SECRET_VALUE);
  expect(all).not.toContain(LLM_KEY);
  await drive('deleteConversation', () => client.deleteConversation(conversationId));
  expect(await client.getConversations([conversationId])).toEqual([null]);

  // Clean up the automation last: `delete` is also the generic verb.
  await drive('deleteAutomation', () => client.deleteAutomation(automation.id));
  await drive('delete', () =>
    client.delete(`/api/automation/v1/${automation.id}`).catch((error: { status?: number }) => {
      // Already deleted: the generic verb reached the endpoint, which answered 404.
      if (error.status !== 404) throw error;
    }),
  );
  const secret = { name: 'COMPAT_PUT', value: 'v' };
  await client.createSecret(secret.name, secret.value);
  await drive('put', () => client.put(`/api/v1/secrets/${secret.name}`, { name: secret.name, description: 'via put' }));
  await drive('patch', () =>
    client.patch(`/api/automation/v1/${automation.id}`, { name: 'gone' }).catch((error: { status?: number }) => {
      if (error.status !== 404) throw error;
    }),
  );
  client.close();
  driven.add('close');
  return driven;
}

describe('the OpenHands CloudClient', () => {
  let llm: FakeLlmServer;
  beforeAll(async () => {
    llm = await startFakeLlmServer({ apiKey: LLM_KEY, respond });
  });
  afterAll(async () => {
    await llm?.close();
  });

  it('the compatibility table names every CloudClient method, each once, as working or not served with a reason', () => {
    const table = compatibilityTable();
    expect([...table.keys()].sort()).toEqual(cloudClientMethods());
  });

  describe('against the handler on a loopback socket', () => {
    let harness: Harness;
    beforeAll(async () => {
      const runtime = createProcessRuntime();
      // The owner sets a model through `saveSettings` first, so the built-in agent runs everything.
      const fallback = createCommandAgentRunner({ command: 'echo no model set' });
      harness = await startHarness('node', { platform: { runtime, agent: createAgentRouter({ llm: createLlmAgentRunner(), fallback }) } });
      await harness.platform.start();
    }, 60_000);
    afterAll(async () => {
      await harness?.platform.stop();
      await harness?.close();
    });

    it('works for every method the table lists as working', async () => {
      const driven = await driveEveryMethod({ baseUrl: harness.baseUrl, key: KEYS.alice }, llm);
      const working = [...compatibilityTable()]
        .filter(([, works]) => works)
        .map(([name]) => name)
        .sort();
      expect([...driven].sort()).toEqual(working);
    }, 120_000);
  });

  describe('against the reference server', () => {
    const key = 'openhands-compat-reference-key-01';
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer('examples/server', { AGENT_PLATFORM_SANDBOX: 'process', AGENT_PLATFORM_API_KEYS: `alice@acme:${key}` });
    }, 60_000);
    afterAll(async () => {
      if (server) expect(await stopServer(server)).toBe(0);
    }, 60_000);

    it('works for every method the table lists as working', async () => {
      const driven = await driveEveryMethod({ baseUrl: server.baseUrl, key }, llm);
      const working = [...compatibilityTable()]
        .filter(([, works]) => works)
        .map(([name]) => name)
        .sort();
      expect([...driven].sort()).toEqual(working);
      expect(server.output.join('')).not.toContain(LLM_KEY);
      expect(server.output.join('')).not.toContain(SECRET_VALUE);
    }, 120_000);
  });
});
