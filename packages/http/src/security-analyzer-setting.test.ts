/**
 * The `security_analyzer` setting over HTTP: the built-in `llm` and `policy` and the analyzers the
 * host's runners register are stored; any other name is a 422 listing them, on both settings APIs.
 */
import { createAgentRouter, type AgentRunner } from '@agent-platform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const idle = (securityAnalyzers: string[] = []): AgentRunner => ({
  securityAnalyzers,
  async *run() {
    yield { type: 'finished', outcome: { status: 'COMPLETED', reason: null } };
  },
});
const router = createAgentRouter({ llm: idle(['acme-rules']), fallback: idle(), runners: { reviewer: idle(['reviewer-rules']) } });
const LISTED = 'the analyzers here are llm, policy, acme-rules, reviewer-rules (or null for none)';

describe.each(BINDINGS)('the security_analyzer setting on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding, { platform: { agent: router } });
  });
  afterAll(() => api.close());

  it('POST /api/settings stores the built-in analyzers, those the host registers, and none', async () => {
    for (const analyzer of ['llm', 'policy', 'acme-rules', 'reviewer-rules', null, '']) {
      expect((await api.request('POST', '/api/settings', { as: 'bob', json: { security_analyzer: analyzer } })).status, String(analyzer)).toBe(200);
      expect((await api.request('GET', '/api/settings', { as: 'bob' })).json.security_analyzer).toBe(analyzer);
    }
  });

  it('POST /api/settings with an unknown analyzer is a 422 listing the names; nothing is stored', async () => {
    await api.request('POST', '/api/settings', { json: { security_analyzer: 'policy', language: 'de' } });
    for (const name of ['invariant', 'LLM', 'polcy']) {
      const refused = await api.request('POST', '/api/settings', { json: { security_analyzer: name, language: 'fr' } });
      expect(refused.status, name).toBe(422);
      expect(refused.json).toEqual({ detail: [{ loc: ['body', 'security_analyzer'], msg: `unknown security analyzer "${name}": ${LISTED}`, type: 'enum' }] });
    }
    expect((await api.request('GET', '/api/settings')).json).toMatchObject({ security_analyzer: 'policy', language: 'de' });
  });

  it('POST /api/v1/settings checks conversation_settings_diff.security_analyzer and the flat field alike', async () => {
    const nested = await api.request('POST', '/api/v1/settings', { json: { conversation_settings_diff: { security_analyzer: 'invariant' } } });
    expect(nested.status).toBe(422);
    expect(nested.json.detail).toEqual([
      { loc: ['body', 'conversation_settings_diff', 'security_analyzer'], msg: `unknown security analyzer "invariant": ${LISTED}`, type: 'enum' },
    ]);
    const flat = await api.request('POST', '/api/v1/settings', { json: { security_analyzer: 'grayswan' } });
    expect(flat.status).toBe(422);
    expect(flat.json.detail[0].loc).toEqual(['body', 'security_analyzer']);

    expect((await api.request('POST', '/api/v1/settings', { json: { conversation_settings_diff: { security_analyzer: 'llm' } } })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/settings')).json.conversation_settings.security_analyzer).toBe('llm');
  });
});

describe('a platform without an agent', () => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness('fastify');
  });
  afterAll(() => api.close());

  it('knows the built-in analyzers only', async () => {
    expect((await api.request('POST', '/api/settings', { json: { security_analyzer: 'policy' } })).status).toBe(200);
    const refused = await api.request('POST', '/api/settings', { json: { security_analyzer: 'acme-rules' } });
    expect(refused.status).toBe(422);
    expect(refused.json.detail[0].msg).toBe('unknown security analyzer "acme-rules": the analyzers here are llm, policy (or null for none)');
  });
});
