import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

describe.each(BINDINGS)('V1 sandboxes on %s', (binding) => {
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

  it('lists specs, starts a sandbox (empty JSON body), pauses, resumes and deletes it', async () => {
    const specs = await api.request('GET', '/api/v1/sandbox-specs/search');
    expect(specs.status).toBe(200);
    expect(specs.json.items[0]).toMatchObject({ id: 'process-default', initial_env: expect.any(Object) });

    const started = await api.request('POST', '/api/v1/sandboxes', { headers: { 'content-type': 'application/json' } });
    expect(started.status).toBe(200);
    expect(started.json).toMatchObject({
      status: 'RUNNING',
      created_by_user_id: 'alice',
      sandbox_spec_id: 'process-default',
      session_api_key: expect.any(String),
    });
    const id = started.json.id as string;

    expect((await api.request('POST', `/api/v1/sandboxes/${id}/pause`)).json).toEqual({ success: true });
    const paused = await api.request('GET', `/api/v1/sandboxes?id=${id}&id=sbx_unknown`);
    expect(paused.json).toEqual([expect.objectContaining({ id, status: 'PAUSED', session_api_key: null }), null]);
    expect((await api.request('POST', `/api/v1/sandboxes/${id}/resume`, { json: {} })).json).toEqual({ success: true });
    expect((await api.request('GET', `/api/v1/sandboxes?id=${id}`)).json[0].status).toBe('RUNNING');

    const search = await api.request('GET', '/api/v1/sandboxes/search?limit=10');
    expect(search.json.items.map((sandbox: { id: string }) => sandbox.id)).toContain(id);
    expect(search.json.next_page_id).toBeNull();

    expect((await api.request('DELETE', `/api/v1/sandboxes/${id}`)).json).toEqual({ success: true });
    expect((await runtime.inspect(id)).status).toBe('MISSING');
    expect((await api.request('POST', `/api/v1/sandboxes/${id}/pause`)).status).toBe(404);
  });

  it('takes the spec from the query or the body, and answers 422 for an unknown one', async () => {
    expect((await api.request('POST', '/api/v1/sandboxes?sandbox_spec_id=process-default')).status).toBe(200);
    expect((await api.request('POST', '/api/v1/sandboxes', { json: { sandbox_spec_id: 'process-default' } })).status).toBe(200);
    const unknown = await api.request('POST', '/api/v1/sandboxes', { json: { sandbox_spec_id: 'nope' } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.detail[0].loc).toEqual(['body', 'sandbox_spec_id']);
  });

  it('shows each user only their own sandboxes', async () => {
    const mine = await api.request('POST', '/api/v1/sandboxes');
    const id = mine.json.id as string;
    expect((await api.request('GET', `/api/v1/sandboxes?id=${id}`, { as: 'bob' })).json).toEqual([null]);
    expect((await api.request('POST', `/api/v1/sandboxes/${id}/pause`, { as: 'bob' })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/sandboxes/${id}`, { as: 'mallory' })).status).toBe(404);
    const theirs = await api.request('GET', '/api/v1/sandboxes/search', { as: 'bob' });
    expect(theirs.json.items.map((sandbox: { id: string }) => sandbox.id)).not.toContain(id);
  });

  it('validates limit and page ids', async () => {
    expect((await api.request('GET', '/api/v1/sandboxes/search?limit=0')).status).toBe(422);
    expect((await api.request('GET', '/api/v1/sandboxes/search?limit=101')).status).toBe(422);
    expect((await api.request('GET', '/api/v1/sandboxes/search?page_id=%%%garbage')).status).toBe(422);
    expect((await api.request('GET', '/api/v1/sandbox-specs/search?page_id=-3')).status).toBe(422);
  });
});

describe('V1 sandboxes without a runtime', () => {
  it('answers 503', async () => {
    const api = await startHarness('fastify');
    try {
      expect((await api.request('GET', '/api/v1/sandbox-specs/search')).status).toBe(503);
      expect((await api.request('POST', '/api/v1/sandboxes')).status).toBe(503);
    } finally {
      await api.close();
    }
  });
});
