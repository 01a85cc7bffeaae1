/**
 * The audit log over HTTP: each change a team makes is recorded once, with who made it, and
 * never a secret; filters and the `after` cursor page through it; the NDJSON export holds the
 * same entries; the chain verifies — and an entry edited in the database (an SQL `UPDATE`, on
 * PGlite) makes `GET /audit/verify` name it.
 */
import { PGlite } from '@electric-sql/pglite';
import type { AppConversationRecord } from '@agent-platform/core';
import { createPGliteStorage } from '@agent-platform/storage-postgres';
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

type Entry = { seq: number; action: string; actor: { id: string | null }; target: { type: string; id: string | null }; details: Record<string, unknown> };

describe('the audit log records the rest of the listed changes', () => {
  const SUBSCRIPTION_URL = 'https://hooks.example.com/agent-platform';
  const SECRET_VALUE = 'npm_audit_secret_value_never_logged';
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness('fastify');
  });
  afterAll(() => api.close());

  /** A conversation of alice's whose agent holds an action for confirmation, as the console shows it. */
  async function conversationWaitingForApproval(): Promise<{ id: string; actionId: string }> {
    const now = new Date().toISOString();
    const id = 'conv_awaiting_approval';
    await api.storage.conversations.insert({
      id,
      created_by_user_id: 'alice',
      org_id: 'acme',
      run_id: null,
      sandbox_id: null,
      selected_repository: null,
      selected_branch: null,
      git_provider: null,
      title: 'Deploy',
      trigger: 'gui',
      pr_number: [],
      llm_model: null,
      sandbox_status: null,
      execution_status: 'waiting_for_confirmation',
      version: 0,
      created_at: now,
      updated_at: now,
    } as AppConversationRecord);
    const [action] = await api.storage.conversations.appendEvents(id, [
      {
        id: 'evt_deploy',
        conversation_id: id,
        kind: 'ActionEvent',
        source: 'agent',
        message: null,
        data: { tool_name: 'terminal', action: { command: 'make deploy' } },
        created_at: now,
      },
    ]);
    return { id, actionId: (action as { id: string }).id };
  }

  it('subscriptions, a webhook’s change, a budget removed, git tokens removed, custom secrets and an approval: each once, never a value', async () => {
    const subscription = await api.request('POST', '/api/automation/v1/subscriptions', { json: { url: SUBSCRIPTION_URL, event_types: ['run.failed'] } });
    expect(subscription.status).toBe(201);
    expect(
      (await api.request('PATCH', `/api/automation/v1/subscriptions/${subscription.json.id}`, { json: { enabled: false, description: 'paused' } })).status,
    ).toBe(200);
    expect((await api.request('DELETE', `/api/automation/v1/subscriptions/${subscription.json.id}`)).status).toBe(204);
    const webhook = await api.request('POST', '/api/automation/v1/webhooks', { json: { name: 'CI', source: 'ci' } });
    expect((await api.request('PATCH', `/api/automation/v1/webhooks/${webhook.json.id}`, { json: { name: 'CI builds' } })).status).toBe(200);
    const budget = await api.request('PUT', '/api/automation/v1/budgets', { json: { scope: 'org', period: 'month', limit_usd: 50 } });
    expect((await api.request('DELETE', `/api/automation/v1/budgets/${budget.json.id}`)).status).toBe(204);
    await api.request('POST', '/api/add-git-providers', { json: { provider_tokens: { github: { token: GIT_TOKEN } } } });
    expect((await api.request('POST', '/api/unset-provider-tokens', { json: { providers: ['github'] } })).status).toBe(200);
    expect((await api.request('POST', '/api/v1/secrets', { json: { name: 'NPM_TOKEN', value: SECRET_VALUE } })).status).toBe(201);
    expect((await api.request('PUT', '/api/v1/secrets/NPM_TOKEN', { json: { name: 'NPM_PUBLISH_TOKEN', description: 'publishes' } })).status).toBe(200);
    expect((await api.request('DELETE', '/api/v1/secrets/NPM_PUBLISH_TOKEN')).status).toBe(200);
    const waiting = await conversationWaitingForApproval();
    const approved = await api.request('POST', `/api/conversations/${waiting.id}/events/respond_to_confirmation`, { json: { accept: true } });
    expect(approved.status).toBe(200);

    const page = await api.request('GET', '/api/automation/v1/audit?limit=100');
    const entries = page.json.entries as Entry[];
    expect(entries.map((entry) => [entry.action, entry.target.type, entry.target.id])).toEqual([
      ['subscription.created', 'subscription', subscription.json.id],
      ['subscription.updated', 'subscription', subscription.json.id],
      ['subscription.deleted', 'subscription', subscription.json.id],
      ['webhook.created', 'webhook', webhook.json.id],
      ['webhook.updated', 'webhook', webhook.json.id],
      ['budget.set', 'budget', budget.json.id],
      ['budget.deleted', 'budget', budget.json.id],
      ['git_tokens.updated', 'user', 'alice'],
      ['git_tokens.removed', 'user', 'alice'],
      ['secret.created', 'secret', 'NPM_TOKEN'],
      ['secret.updated', 'secret', 'NPM_TOKEN'],
      ['secret.deleted', 'secret', 'NPM_PUBLISH_TOKEN'],
      ['action.approved', 'conversation', waiting.id],
    ]);
    for (const entry of entries) expect(entry.actor).toEqual({ kind: 'key', id: 'alice', role: 'owner' });
    const byAction = Object.fromEntries(entries.map((entry) => [entry.action, entry.details]));
    expect(byAction['subscription.created']).toEqual({ url: SUBSCRIPTION_URL, event_types: ['run.failed'] });
    expect(byAction['subscription.updated']).toEqual({ fields: expect.arrayContaining(['enabled', 'description']) });
    expect(byAction['webhook.updated']).toEqual({ source: 'ci', fields: ['name'] });
    expect(byAction['budget.deleted']).toEqual({ scope: 'org', subject_id: null, period: 'month', limit_usd: 50 });
    expect(byAction['git_tokens.removed']).toEqual({ providers: ['github'] });
    expect(byAction['secret.updated']).toEqual({ fields: ['name', 'description'], renamed_to: 'NPM_PUBLISH_TOKEN' });
    expect(byAction['action.approved']).toEqual({ action_id: waiting.actionId });
    const text = JSON.stringify(page.json);
    for (const secret of [GIT_TOKEN, SECRET_VALUE, subscription.json.secret, webhook.json.webhook_secret]) expect(text).not.toContain(secret);
    expect((await api.request('GET', '/api/automation/v1/audit/verify')).json).toEqual({ valid: true, checked: 13, broken_at: null });
  });
});

describe('an audit entry edited in the database (PGlite, an SQL UPDATE)', () => {
  let db: PGlite;
  let api: Harness;
  beforeAll(async () => {
    db = new PGlite();
    api = await startHarness('fastify', { storage: await createPGliteStorage({ db }) });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await db?.close();
  });

  it('is named by GET /audit/verify: the first entry whose hash does not hold', async () => {
    const automation = await api.request('POST', '/api/automation/v1', {
      json: { name: 'Deploys', trigger: { type: 'event', source: 'github', on: 'push', filter: "ref == 'refs/heads/main'" }, instructions: 'Check it' },
    });
    await api.request('PATCH', `/api/automation/v1/${automation.json.id}`, { json: { trigger: { type: 'event', source: 'github', on: 'push' } } });
    await api.request('DELETE', `/api/automation/v1/${automation.json.id}`);
    expect((await api.request('GET', '/api/automation/v1/audit/verify')).json).toEqual({ valid: true, checked: 3, broken_at: null });

    // Someone with the database's address hides that the filter was removed.
    const updated = await db.query(
      `UPDATE agent_platform.audit_entries SET data = jsonb_set(data, '{details}', '{"fields": ["name"]}'::jsonb)
        WHERE org_id = 'acme' AND seq = 2 RETURNING data->>'action' AS action`,
    );
    expect(updated.rows).toEqual([{ action: 'automation.updated' }]);
    const listed = (await api.request('GET', '/api/automation/v1/audit')).json.entries as Entry[];
    expect(listed[1]?.details).toEqual({ fields: ['name'] });
    expect((await api.request('GET', '/api/automation/v1/audit/verify')).json).toEqual({ valid: false, checked: 1, broken_at: 2 });
  });
});
