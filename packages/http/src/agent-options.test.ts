/**
 * The `agent` setting over HTTP: `GET /api/options/agents` lists the names the host's router
 * answers to, and a save naming another is a 422 listing them, on both settings APIs.
 */
import { createAgentRouter, type AgentRunner } from '@agent-platform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const idle: AgentRunner = {
  async *run() {
    yield { type: 'finished', outcome: { status: 'COMPLETED', reason: null } };
  },
};
const router = createAgentRouter({ llm: idle, readOnly: idle, fallback: idle, runners: { reviewer: idle } });
const NAMES = ['coding', 'read-only', 'command', 'reviewer'];
const LISTED = 'the agents here are coding, read-only, command, reviewer (GET /api/options/agents lists them)';

describe.each(BINDINGS)('the agent setting on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding, { platform: { agent: router } });
  });
  afterAll(() => api.close());

  it('GET /api/options/agents lists the names, the default first; it needs a key', async () => {
    const answer = await api.request('GET', '/api/options/agents');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(NAMES);
    expect((await api.request('GET', '/api/options/agents', { as: null })).status).toBe(401);
  });

  it('POST /api/settings stores a name the router knows, its aliases too', async () => {
    for (const agent of ['read-only', 'ReadOnlyAgent', 'CodeActAgent', 'reviewer', 'command']) {
      expect((await api.request('POST', '/api/settings', { as: 'bob', json: { agent } })).status, agent).toBe(200);
      expect((await api.request('GET', '/api/settings', { as: 'bob' })).json.agent).toBe(agent);
    }
    // Unset is the default agent.
    expect((await api.request('POST', '/api/settings', { as: 'bob', json: { agent: null } })).status).toBe(200);
    expect((await api.request('GET', '/api/settings', { as: 'bob' })).json.agent).toBeNull();
  });

  it('POST /api/settings with an unknown name is a 422 naming the field and listing the names; nothing is stored', async () => {
    await api.request('POST', '/api/settings', { json: { agent: 'read-only', language: 'de' } });
    const refused = await api.request('POST', '/api/settings', { json: { agent: 'nope', language: 'fr' } });
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({ detail: [{ loc: ['body', 'agent'], msg: `unknown agent "nope": ${LISTED}`, type: 'enum' }] });
    expect((await api.request('GET', '/api/settings')).json).toMatchObject({ agent: 'read-only', language: 'de' });
  });

  it('an unknown name is echoed cut short, never whole', async () => {
    const refused = await api.request('POST', '/api/settings', { json: { agent: 'x'.repeat(5000) } });
    expect(refused.status).toBe(422);
    expect(refused.text.length).toBeLessThan(600);
  });

  it('POST /api/v1/settings checks agent_settings_diff.agent and the flat agent alike', async () => {
    const nested = await api.request('POST', '/api/v1/settings', { json: { agent_settings_diff: { agent: 'nope' } } });
    expect(nested.status).toBe(422);
    expect(nested.json.detail).toEqual([{ loc: ['body', 'agent_settings_diff', 'agent'], msg: `unknown agent "nope": ${LISTED}`, type: 'enum' }]);
    const flat = await api.request('POST', '/api/v1/settings', { json: { agent: 'BrowsingAgent' } });
    expect(flat.status).toBe(422);
    expect(flat.json.detail[0].loc).toEqual(['body', 'agent']);

    expect((await api.request('POST', '/api/v1/settings', { json: { agent_settings_diff: { agent: 'reviewer' } } })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/settings')).json.agent_settings.agent).toBe('reviewer');
  });
});

describe('a platform given a plain runner', () => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness('fastify', { platform: { agent: idle } });
  });
  afterAll(() => api.close());

  it('checks no name and lists none', async () => {
    expect((await api.request('GET', '/api/options/agents')).json).toEqual([]);
    expect((await api.request('POST', '/api/settings', { json: { agent: 'anything' } })).status).toBe(200);
  });
});
