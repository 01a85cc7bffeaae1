/**
 * A conversation carries its sandbox's `session_api_key` (OpenHands' `CloudAppConversation`),
 * for its owner, while the sandbox runs: with `conversation_url` it is all an agent-server
 * client needs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { strFromU8, unzipSync } from 'fflate';
import { BINDINGS, KEYS, startHarness, type Harness } from '../test-support/harness.js';

const BASE = '/api/v1/app-conversations';

async function startConversation(api: Harness): Promise<{ app_conversation_id: string; sandbox_id: string }> {
  const started = await api.request('POST', BASE, { headers: { 'content-type': 'application/json' } });
  for (let i = 0; i < 200; i++) {
    const [task] = (await api.request('GET', `${BASE}/start-tasks?ids=${started.json.id}`)).json;
    if (task.status === 'READY') return task;
    if (task.status === 'ERROR') throw new Error(task.detail);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the start task did not finish');
}

describe.each(BINDINGS)('a conversation’s session_api_key on %s', (binding) => {
  let api: Harness;
  let runtime: SandboxRuntime;
  beforeAll(async () => {
    runtime = createProcessRuntime();
    api = await startHarness(binding, { platform: { runtime } });
  });
  afterAll(async () => {
    await api.close();
    await runtime.close();
  });

  it('is the running sandbox’s key, opens conversation_url, and is null once the sandbox is gone', async () => {
    const { app_conversation_id: id, sandbox_id: sandboxId } = await startConversation(api);
    const [sandbox] = (await api.request('GET', `/api/v1/sandboxes?id=${sandboxId}`)).json;
    expect(sandbox).toMatchObject({ status: 'RUNNING', session_api_key: expect.any(String) });

    const conversation = (await api.request('GET', `${BASE}/${id}`)).json;
    expect(conversation.session_api_key).toBe(sandbox.session_api_key);
    expect(conversation.conversation_url).toMatch(new RegExp(`/api/conversations/${id}$`));
    // Every view of it to its owner carries the key: search, batch get, update.
    const found = (await api.request('GET', `${BASE}/search?limit=100`)).json.items.find((item: { id: string }) => item.id === id);
    expect(found.session_api_key).toBe(sandbox.session_api_key);
    expect((await api.request('GET', `${BASE}?ids=${id}`)).json[0].session_api_key).toBe(sandbox.session_api_key);
    expect((await api.request('PATCH', `${BASE}/${id}`, { json: { title: 'renamed' } })).json.session_api_key).toBe(sandbox.session_api_key);
    // Not to anyone else.
    expect((await api.request('GET', `${BASE}?ids=${id}`, { as: 'bob' })).json).toEqual([null]);
    expect((await api.request('GET', `${BASE}/${id}`, { as: 'bob' })).status).toBe(404);

    // The pair is an agent-server client's credentials.
    const path = new URL(conversation.conversation_url).pathname;
    const session = { as: null, headers: { 'x-session-api-key': conversation.session_api_key } };
    const served = await api.request('GET', path, session);
    expect(served.status).toBe(200);
    expect(served.json.id).toBe(id);
    expect((await api.request('GET', `${path}/events/search`, session)).status).toBe(200);

    // Never logged, never in the downloaded archive.
    expect(api.logs.join('\n')).not.toContain(conversation.session_api_key);
    const archive = await fetch(`${api.baseUrl}${BASE}/${id}/download`, { headers: { 'x-session-api-key': KEYS.alice } });
    expect(archive.status).toBe(200);
    const meta = JSON.parse(strFromU8(unzipSync(new Uint8Array(await archive.arrayBuffer()))['meta.json'] as Uint8Array));
    expect(meta).toMatchObject({ id, session_api_key: null });

    // Paused, then deleted: no key (and the old one opens nothing).
    expect((await api.request('POST', `/api/v1/sandboxes/${sandboxId}/pause`)).status).toBe(200);
    expect((await api.request('GET', `${BASE}/${id}`)).json.session_api_key).toBeNull();
    expect((await api.request('POST', `/api/v1/sandboxes/${sandboxId}/resume`, { json: {} })).status).toBe(200);
    expect((await api.request('GET', `${BASE}/${id}`)).json.session_api_key).toBe(sandbox.session_api_key);
    expect((await api.request('DELETE', `/api/v1/sandboxes/${sandboxId}`)).status).toBe(200);
    const after = (await api.request('GET', `${BASE}/${id}`)).json;
    expect(after.session_api_key).toBeNull();
    expect(after.conversation_url).toBe(conversation.conversation_url);
    expect((await api.request('GET', path, session)).status).toBe(401);
  });
});
