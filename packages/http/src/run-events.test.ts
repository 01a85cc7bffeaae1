/**
 * `GET /api/automation/v1/runs/{run_id}/events`: a run's events for anyone in its org (the run's
 * page is a link shared in the org, though the conversation is its owner's), for nobody outside.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommandAgentRunner, type SandboxRuntime } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const BASE = '/api/automation/v1';

describe.each(BINDINGS)('a run’s events on %s', (binding) => {
  let api: Harness;
  let runtime: SandboxRuntime;
  let run: { id: string; conversation_id: string };
  beforeAll(async () => {
    runtime = createProcessRuntime();
    api = await startHarness(binding, {
      platform: { runtime, agent: createCommandAgentRunner({ command: 'echo "first line"; echo "second line"' }), executor: { pollIntervalMs: 20 } },
    });
    await api.platform.start();
    const automation = await api.request('POST', BASE, {
      json: { name: 'story', trigger: { type: 'event', source: 'ci', on: 'never.sent' }, instructions: 'Tell it.' },
    });
    const dispatched = (await api.request('POST', `${BASE}/${automation.json.id}/dispatch`)).json;
    for (let tries = 0; tries < 500; tries++) {
      run = (await api.request('GET', `${BASE}/runs/${dispatched.id}`)).json;
      if ((run as { status?: string }).status === 'COMPLETED') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(run).toMatchObject({ status: 'COMPLETED', conversation_id: expect.any(String) });
  });
  afterAll(async () => {
    await api.platform.stop();
    await api.close();
    await runtime.close();
  });

  it('answers the run’s conversation’s events, oldest first, to another member of its org, whom the conversation itself refuses', async () => {
    const own = await api.request('GET', `/api/v1/app-conversations/${run.conversation_id}/events`);
    const shared = await api.request('GET', `${BASE}/runs/${run.id}/events`, { as: 'bob' });
    expect(shared.status).toBe(200);
    expect(shared.json).toEqual(own.json);
    expect(shared.json.items.map((event: { kind: string }) => event.kind)).toEqual([
      'MessageEvent',
      'agent_event',
      'agent_output',
      'agent_output',
      'ConversationStateUpdateEvent',
      'status',
    ]);
    expect((await api.request('GET', `/api/v1/app-conversations/${run.conversation_id}/events`, { as: 'bob' })).status).toBe(404);
  });

  it('pages with page_id, each event once', async () => {
    const seen: number[] = [];
    let pageId: string | null = null;
    do {
      const page = await api.request('GET', `${BASE}/runs/${run.id}/events?limit=2${pageId ? `&page_id=${pageId}` : ''}`);
      expect(page.json.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.items.map((event: { seq: number }) => event.seq));
      pageId = page.json.next_page_id;
    } while (pageId);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('is a 404 outside the org and for an unknown run, a 422 for a bad limit', async () => {
    expect((await api.request('GET', `${BASE}/runs/${run.id}/events`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('GET', `${BASE}/runs/run_nope/events`)).status).toBe(404);
    expect((await api.request('GET', `${BASE}/runs/${run.id}/events?limit=0`)).status).toBe(422);
  });
});
