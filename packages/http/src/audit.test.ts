/**
 * The audit log over HTTP: each change a team makes is recorded once, with who made it, and
 * never a secret; filters and the `after` cursor page through it; the NDJSON export holds the
 * same entries; the chain verifies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../test-support/harness.js';

const WEBHOOK_SECRET = 'whsec-audit-secret-0123456789';
const GIT_TOKEN = 'ghp_audit_token_never_logged_42';
const LLM_KEY = 'sk-audit-llm-key-never-logged';

describe('the audit log', () => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness('fastify');
  });
  afterAll(() => api.close());

  it('records each change once, with its actor, and never a secret', async () => {
    const automation = await api.request('POST', '/api/automation/v1', {
      json: { name: 'Deploys', trigger: { type: 'event', source: 'github', on: 'push' }, instructions: 'Check it' },
    });
    await api.request('PATCH', `/api/automation/v1/${automation.json.id}`, { json: { enabled: false, name: 'Deploys, paused' } });
    const run = await api.request('POST', `/api/automation/v1/${automation.json.id}/dispatch`);
    await api.request('POST', `/api/automation/v1/runs/${run.json.id}/cancel`);
    await api.request('DELETE', `/api/automation/v1/${automation.json.id}`);
    const webhook = await api.request('POST', '/api/automation/v1/webhooks', { json: { name: 'CI', source: 'ci', webhook_secret: WEBHOOK_SECRET } });
    await api.request('POST', `/api/automation/v1/webhooks/${webhook.json.id}/rotate-secret`, { json: { grace_period_seconds: 0 } });
    const key = await api.request('POST', '/api/keys', { json: { name: 'laptop', role: 'member' } });
    await api.request('DELETE', `/api/keys/${key.json.id}`);
    await api.request('POST', '/api/settings', { json: { llm_model: 'openai/gpt-4o', llm_api_key: LLM_KEY } });
    await api.request('POST', '/api/add-git-providers', { json: { provider_tokens: { github: { token: GIT_TOKEN } } } });

    const page = await api.request('GET', '/api/automation/v1/audit?limit=100');
    expect(page.status).toBe(200);
    const entries = page.json.entries as Array<{
      seq: number;
      action: string;
      actor: unknown;
      target: { type: string; id: string | null };
      details: Record<string, unknown>;
    }>;
    expect(entries.map((entry) => entry.action)).toEqual([
      'automation.created',
      'automation.updated',
      'run.cancelled',
      'automation.deleted',
      'webhook.created',
      'webhook.secret_rotated',
      'api_key.created',
      'api_key.revoked',
      'settings.updated',
      'git_tokens.updated',
    ]);
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => index + 1));
    expect(entries[0]).toMatchObject({ actor: { kind: 'key', id: 'alice', role: 'owner' }, target: { type: 'automation', id: automation.json.id } });
    expect(entries[1]!.details).toEqual({ fields: ['name', 'enabled'] });
    expect(entries[6]!.details).toMatchObject({ name: 'laptop', role: 'member' });
    expect(entries[8]!.details.fields).toEqual(expect.arrayContaining(['llm_model', 'llm_api_key']));
    expect(entries[9]!.details).toMatchObject({ providers: ['github'] });
    const text = JSON.stringify(page.json);
    for (const secret of [WEBHOOK_SECRET, GIT_TOKEN, LLM_KEY, key.json.key, webhook.json.webhook_secret]) expect(text).not.toContain(secret);
    // Another org sees none of it.
    expect((await api.request('GET', '/api/automation/v1/audit', { as: 'mallory' })).json.entries).toEqual([]);
  });

  it('names the request each entry was made in: the caller’s X-Request-Id, or the one the answer carries', async () => {
    const given = await api.request('POST', '/api/automation/v1/webhooks', {
      json: { name: 'Traced', source: 'traced' },
      headers: { 'x-request-id': 'trace-4bf92f3577b3' },
      as: 'mallory',
    });
    expect(given.headers.get('x-request-id')).toBe('trace-4bf92f3577b3');
    const minted = await api.request('DELETE', `/api/automation/v1/webhooks/${given.json.id}`, {
      headers: { 'x-request-id': 'not an id; <script>' },
      as: 'mallory',
    });
    const mintedId = minted.headers.get('x-request-id');
    expect(mintedId).toMatch(/^req_[0-9a-f]{32}$/);
    const entries = (await api.request('GET', '/api/automation/v1/audit?target_type=webhook', { as: 'mallory' })).json.entries as Array<{
      action: string;
      target: { id: string };
      request_id: string;
    }>;
    const mine = entries.filter((entry) => entry.target.id === given.json.id);
    expect(mine.map((entry) => [entry.action, entry.request_id])).toEqual([
      ['webhook.created', 'trace-4bf92f3577b3'],
      ['webhook.deleted', mintedId],
    ]);
  });

  it('filters, pages with `after`, exports NDJSON and verifies', async () => {
    const created = await api.request('GET', '/api/automation/v1/audit?action=automation.created');
    expect(created.json.entries.map((entry: { action: string }) => entry.action)).toEqual(['automation.created']);
    const first = await api.request('GET', '/api/automation/v1/audit?limit=3');
    expect(first.json.entries).toHaveLength(3);
    expect(first.json.next_after).toBe(3);
    const second = await api.request('GET', '/api/automation/v1/audit?limit=3&after=3');
    expect(second.json.entries[0].seq).toBe(4);

    const exported = await api.request('GET', '/api/automation/v1/audit/export?target_type=webhook');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = exported.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string });
    expect(lines.map((line) => line.action)).toEqual(['webhook.created', 'webhook.secret_rotated']);

    expect((await api.request('GET', '/api/automation/v1/audit/verify')).json).toEqual({ valid: true, checked: 10, broken_at: null });
  });
});
