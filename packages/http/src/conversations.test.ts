import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommandAgentRunner, type SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

// The agent echoes its task, prints one structured event, shows what reached it, and fails
// when asked to.
const AGENT = [
  'echo "task: $AGENT_PLATFORM_INSTRUCTIONS"',
  `echo '{"kind":"tool_call","tool":"ls"}'`,
  'echo "model=$LLM_MODEL key=$LLM_API_KEY conv=$AGENT_PLATFORM_CONVERSATION_ID"',
  'case "$AGENT_PLATFORM_INSTRUCTIONS" in *fail*) echo "quota exceeded" >&2; exit 4;; *sleep*) sleep 30;; esac',
].join('; ');

async function waitForTask(api: Harness, taskId: string, as: 'alice' | 'bob' = 'alice') {
  for (let i = 0; i < 200; i++) {
    const [task] = (await api.request('GET', `/api/v1/app-conversations/start-tasks?ids=${taskId}`, { as })).json;
    if (task.status === 'READY' || task.status === 'ERROR') return task;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the start task did not finish');
}

describe.each(BINDINGS)('V1 app conversations on %s', (binding) => {
  let api: Harness;
  let runtime: SandboxRuntime;
  beforeAll(async () => {
    runtime = createProcessRuntime();
    api = await startHarness(binding, { platform: { runtime, agent: createCommandAgentRunner({ command: AGENT }) } });
    await api.request('POST', '/api/settings', { json: { llm_model: 'demo/model', llm_api_key: 'sk-very-secret-value' } });
  });
  afterAll(async () => {
    await api.close();
    await runtime.close();
  });

  it('starts a conversation: a start task at once, then READY with a sandbox, and the agent’s events', async () => {
    const started = await api.request('POST', '/api/v1/app-conversations', { json: { initial_message: { content: 'list the files' }, title: 'files' } });
    expect(started.status).toBe(200);
    expect(started.json).toMatchObject({ id: expect.any(String), status: expect.any(String), created_by_user_id: 'alice', request: { title: 'files' } });
    const task = await waitForTask(api, started.json.id);
    expect(task).toMatchObject({ status: 'READY', app_conversation_id: expect.any(String), sandbox_id: expect.any(String), detail: null });
    await api.platform.conversations.settled();

    const conversation = await api.request('GET', `/api/v1/app-conversations/${task.app_conversation_id}`);
    expect(conversation.json).toMatchObject({
      id: task.app_conversation_id,
      sandbox_id: task.sandbox_id,
      trigger: 'api',
      title: 'files',
      selected_repository: null,
      execution_status: 'finished',
    });

    const events = await api.request('GET', `/api/v1/app-conversations/${task.app_conversation_id}/events`);
    expect(events.status).toBe(200);
    const items = events.json.items as { kind: string; seq: number; message: string | null; data: unknown }[];
    expect(items.map((event) => event.kind)).toEqual(['MessageEvent', 'agent_output', 'agent_event', 'agent_output', 'ConversationStateUpdateEvent', 'status']);
    expect(items.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(items[1]?.message).toBe('task: list the files');
    expect(items[2]?.data).toEqual({ kind: 'tool_call', tool: 'ls' });
    expect(items[3]?.message).toContain(`model=demo/model`);
    expect(items[3]?.message).toContain(`conv=${task.app_conversation_id}`);
    expect(events.text).not.toContain('sk-very-secret-value');
    expect(items[5]?.data).toEqual({ status: 'COMPLETED', reason: null });

    // The sandbox stays, the user's to inspect or delete.
    const sandbox = await api.request('GET', `/api/v1/sandboxes?id=${task.sandbox_id}`);
    expect(sandbox.json[0]).toMatchObject({ status: 'RUNNING' });
  });

  it('accepts an empty JSON body: a conversation with no message, idle', async () => {
    const started = await api.request('POST', '/api/v1/app-conversations', { headers: { 'content-type': 'application/json' } });
    expect(started.status).toBe(200);
    const task = await waitForTask(api, started.json.id);
    expect(task.status).toBe('READY');
    const conversation = await api.request('GET', `/api/v1/app-conversations/${task.app_conversation_id}`);
    expect(conversation.json).toMatchObject({ execution_status: 'idle', title: null });
    expect((await api.request('GET', `/api/v1/app-conversations/${task.app_conversation_id}/events`)).json).toEqual({ items: [], next_page_id: null });
  });

  it('records a failing agent as error, with the end of its error output', async () => {
    const started = await api.request('POST', '/api/v1/app-conversations', { json: { initial_message: 'please fail' } });
    const task = await waitForTask(api, started.json.id);
    await api.platform.conversations.settled();
    const conversation = await api.request('GET', `/api/v1/app-conversations/${task.app_conversation_id}`);
    expect(conversation.json.execution_status).toBe('error');
    const events = (await api.request('GET', `/api/v1/app-conversations/${task.app_conversation_id}/events`)).json.items;
    expect(events.at(-1).data).toEqual({ status: 'FAILED', reason: expect.stringContaining('quota exceeded') });
  });

  it('pages conversations, their events and start tasks', async () => {
    const started = await api.request('POST', '/api/v1/app-conversations', { json: { initial_message: 'page me' } });
    const task = await waitForTask(api, started.json.id);
    await api.platform.conversations.settled();
    const first = await api.request('GET', `/api/v1/app-conversations/${task.app_conversation_id}/events?limit=2`);
    expect(first.json.items).toHaveLength(2);
    expect(first.json.next_page_id).toEqual(expect.any(String));
    const rest = await api.request('GET', `/api/v1/app-conversations/${task.app_conversation_id}/events?limit=100&page_id=${first.json.next_page_id}`);
    expect(rest.json.items[0].seq).toBe(2);
    expect(rest.json.next_page_id).toBeNull();

    const list = await api.request('GET', '/api/v1/app-conversations?limit=1');
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0].id).toBe(task.app_conversation_id);
    const search = await api.request('GET', `/api/v1/app-conversations/search?limit=1&page_id=${list.json.next_page_id}`);
    expect(search.json.items).toHaveLength(1);
    expect(search.json.items[0].id).not.toBe(task.app_conversation_id);

    const tasks = await api.request('GET', '/api/v1/app-conversations/start-tasks/search?limit=100');
    expect(tasks.json.items.map((item: { id: string }) => item.id)).toContain(task.id);
  });

  it('batch gets by ids=, null for unknown ones and other users’ ones', async () => {
    const started = await api.request('POST', '/api/v1/app-conversations', { json: { title: 'mine' } });
    const task = await waitForTask(api, started.json.id);
    const id = task.app_conversation_id as string;
    const batch = await api.request('GET', `/api/v1/app-conversations?ids=${id}&ids=conv_unknown`);
    expect(batch.json).toEqual([expect.objectContaining({ id, title: 'mine' }), null]);

    expect((await api.request('GET', `/api/v1/app-conversations?ids=${id}`, { as: 'bob' })).json).toEqual([null]);
    expect((await api.request('GET', `/api/v1/app-conversations/${id}`, { as: 'bob' })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/app-conversations/${id}/events`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/app-conversations/start-tasks?ids=${task.id}`, { as: 'bob' })).json).toEqual([null]);
    const theirs = await api.request('GET', '/api/v1/app-conversations/search', { as: 'bob' });
    expect(theirs.json.items.map((item: { id: string }) => item.id)).not.toContain(id);
  });

  it('answers 422 for a bad limit, too many ids, a bad body or an unknown spec, and 401 without a key', async () => {
    for (const path of [
      '/api/v1/app-conversations/search?limit=0',
      '/api/v1/app-conversations?limit=101',
      '/api/v1/app-conversations/start-tasks/search?limit=x',
    ]) {
      const answer = await api.request('GET', path);
      expect(answer.status, path).toBe(422);
      expect(answer.json.detail[0].loc).toEqual(['query', 'limit']);
    }
    const many = Array.from({ length: 101 }, (_, i) => `ids=c${i}`).join('&');
    expect((await api.request('GET', `/api/v1/app-conversations?${many}`)).json.detail[0].loc).toEqual(['query', 'ids']);
    const badBody = await api.request('POST', '/api/v1/app-conversations', { json: { initial_message: 42 } });
    expect(badBody.status).toBe(422);
    expect(badBody.json.detail[0].loc).toEqual(['body', 'initial_message']);
    const unknownSpec = await api.request('POST', '/api/v1/app-conversations', { json: { sandbox_spec_id: 'nope' } });
    expect(unknownSpec.status).toBe(422);
    expect(unknownSpec.json.detail[0].loc).toEqual(['body', 'sandbox_spec_id']);
    expect((await api.request('GET', '/api/v1/app-conversations/search', { as: null })).status).toBe(401);
    expect((await api.request('POST', '/api/v1/app-conversations', { as: null, json: {} })).status).toBe(401);
  });

  it('stops a running agent when the platform stops: the conversation ends paused, to be taken up again', async () => {
    const local = await startHarness(binding, { platform: { runtime, agent: createCommandAgentRunner({ command: AGENT }) } });
    const started = await local.request('POST', '/api/v1/app-conversations', { json: { initial_message: 'sleep a while' } });
    const task = await waitForTask(local, started.json.id);
    const conversation = await local.request('GET', `/api/v1/app-conversations/${task.app_conversation_id}`);
    expect(conversation.json.execution_status).toBe('running');
    const began = Date.now();
    await local.platform.conversations.stop();
    expect(Date.now() - began).toBeLessThan(10_000);
    const stopped = await local.platform.conversations.get({ userId: 'alice', orgId: 'acme' }, task.app_conversation_id);
    expect(stopped.execution_status).toBe('paused');
    await local.close();
  });
});

describe('V1 app conversations without a runtime', () => {
  it('answer 503 on start and still list (nothing)', async () => {
    const api = await startHarness('fastify');
    const started = await api.request('POST', '/api/v1/app-conversations', { json: {} });
    expect(started.status).toBe(503);
    expect((await api.request('GET', '/api/v1/app-conversations/search')).json).toEqual({ items: [], next_page_id: null });
    await api.close();
  });
});
