import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const BASE = '/api/automation/v1/webhooks';

describe.each(BINDINGS)('custom webhooks on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding);
  });
  afterAll(() => api.close());

  it('registers with a generated secret shown once, and the webhook URL', async () => {
    const created = await api.request('POST', BASE, {
      as: null,
      headers: { authorization: 'Bearer alice-key-0123456789abcdef' },
      json: { name: 'Linear', source: 'linear' },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: expect.any(String),
      org_id: 'acme',
      name: 'Linear',
      source: 'linear',
      event_key_expr: 'type',
      signature_header: 'X-Signature-256',
      signature_scheme: 'hmac-sha256',
      event_key_header: null,
      delivery_id_header: null,
      enabled: true,
      created_by: 'alice',
      webhook_url: 'https://agents.example.com/api/automation/v1/events/acme/linear',
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const secret = created.json.webhook_secret as string;
    const got = await api.request('GET', `${BASE}/${created.json.id}`);
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(secret);
    expect(got.json).not.toHaveProperty('webhook_secret');
    const listed = await api.request('GET', BASE);
    expect(listed.text).not.toContain(secret);
    const record = await api.storage.webhooks.get('acme', created.json.id);
    expect(JSON.stringify(record)).not.toContain(secret);
    expect(api.platform.webhooks.secretsFor(record!).current).toBe(secret);
  });

  it('does not echo a secret the caller supplied', async () => {
    const created = await api.request('POST', BASE, {
      json: { name: 'Stripe', source: 'stripe', webhook_secret: 'whsec_supplied_by_user', signature_scheme: 'stripe', signature_header: 'Stripe-Signature' },
    });
    expect(created.status).toBe(201);
    expect(created.json).not.toHaveProperty('webhook_secret');
    expect(created.text).not.toContain('whsec_supplied_by_user');
  });

  it('answers 409 for a duplicate source in the org, but allows it in another org', async () => {
    expect((await api.request('POST', BASE, { as: 'bob', json: { name: 'again', source: 'linear' } })).status).toBe(409);
    expect((await api.request('POST', BASE, { as: 'mallory', json: { name: 'theirs', source: 'linear' } })).status).toBe(201);
  });

  it.each([
    ['a bad source', { name: 'x', source: 'Bad_Source' }, 'source'],
    ['the reserved source github', { name: 'x', source: 'github' }, 'source'],
    ['a source too long', { name: 'x', source: 'a'.repeat(51) }, 'source'],
    ['a bad header name', { name: 'x', source: 'ok-1', signature_header: 'X Sig' }, 'signature_header'],
    ['an expression that does not compile', { name: 'x', source: 'ok-2', event_key_expr: 'data.[' }, 'event_key_expr'],
    ['an unknown function', { name: 'x', source: 'ok-3', event_key_expr: 'upper_case(type)' }, 'event_key_expr'],
    ['a short secret', { name: 'x', source: 'ok-4', webhook_secret: 'short' }, 'webhook_secret'],
    ['an unknown scheme', { name: 'x', source: 'ok-5', signature_scheme: 'md5' }, 'signature_scheme'],
    ['a missing name', { source: 'ok-6' }, 'name'],
  ])('answers 422 for %s', async (_label, body, field) => {
    const response = await api.request('POST', BASE, { json: body });
    expect(response.status).toBe(422);
    expect(response.json.detail.map((issue: { loc: string[] }) => issue.loc)).toContainEqual(['body', field]);
  });

  it('lists the org’s webhooks with a total and paging, and validates the query', async () => {
    for (const source of ['page-a', 'page-b', 'page-c']) await api.request('POST', BASE, { as: 'bob', json: { name: source, source } });
    const all = await api.request('GET', BASE, { as: 'bob' });
    expect(all.json.total).toBe(all.json.webhooks.length);
    expect(all.json.webhooks.every((webhook: { org_id: string }) => webhook.org_id === 'acme')).toBe(true);
    const page = await api.request('GET', `${BASE}?limit=2&offset=1`, { as: 'bob' });
    expect(page.json.webhooks).toHaveLength(2);
    expect(page.json.total).toBe(all.json.total);
    expect(page.json.webhooks[0].id).toBe(all.json.webhooks[1].id);
    const bad = await api.request('GET', `${BASE}?limit=0`);
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['query', 'limit']);
    const theirs = await api.request('GET', BASE, { as: 'mallory' });
    expect(theirs.json.webhooks.map((webhook: { source: string }) => webhook.source)).toEqual(['linear']);
  });

  it('updates a webhook, refusing a change of source', async () => {
    const created = await api.request('POST', BASE, { json: { name: 'Chat', source: 'chat-events' } });
    const updated = await api.request('PATCH', `${BASE}/${created.json.id}`, {
      json: { name: 'Slack events', signature_scheme: 'slack', signature_header: 'X-Slack-Signature', enabled: false, event_key_expr: 'event.type' },
    });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({
      name: 'Slack events',
      signature_scheme: 'slack',
      enabled: false,
      event_key_expr: 'event.type',
      source: 'chat-events',
    });
    const source = await api.request('PATCH', `${BASE}/${created.json.id}`, { json: { source: 'other' } });
    expect(source.status).toBe(422);
    expect(source.json.detail[0].loc).toEqual(['body', 'source']);
    const badExpr = await api.request('PATCH', `${BASE}/${created.json.id}`, { json: { event_key_expr: '[[' } });
    expect(badExpr.status).toBe(422);
  });

  it('hides another org’s webhook behind 404 for every verb', async () => {
    const created = await api.request('POST', BASE, { json: { name: 'Private', source: 'private-src' } });
    const id = created.json.id as string;
    expect((await api.request('GET', `${BASE}/${id}`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('PATCH', `${BASE}/${id}`, { as: 'mallory', json: { name: 'x' } })).status).toBe(404);
    expect((await api.request('DELETE', `${BASE}/${id}`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('POST', `${BASE}/${id}/rotate-secret`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('GET', `${BASE}/${id}`, { as: 'bob' })).status).toBe(200);
  });

  it('deletes a webhook (204), after which it is gone', async () => {
    const created = await api.request('POST', BASE, { json: { name: 'Temp', source: 'temp' } });
    expect((await api.request('DELETE', `${BASE}/${created.json.id}`)).status).toBe(204);
    expect((await api.request('GET', `${BASE}/${created.json.id}`)).status).toBe(404);
    expect((await api.request('DELETE', `${BASE}/${created.json.id}`)).status).toBe(404);
    expect((await api.request('POST', BASE, { json: { name: 'Temp again', source: 'temp' } })).status).toBe(201);
  });

  it('rotates the secret: the new one shown once, the old one valid for the grace period', async () => {
    const created = await api.request('POST', BASE, { json: { name: 'Rotating', source: 'rotating' } });
    const old = created.json.webhook_secret as string;
    const rotated = await api.request('POST', `${BASE}/${created.json.id}/rotate-secret`, { headers: { 'content-type': 'application/json' } });
    expect(rotated.status).toBe(200);
    expect(rotated.json.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.json.webhook_secret).not.toBe(old);
    const expiresAt = Date.parse(rotated.json.previous_secret_expires_at);
    expect(expiresAt - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    const record = await api.storage.webhooks.get('acme', created.json.id);
    expect(api.platform.webhooks.secretsFor(record!)).toEqual({ current: rotated.json.webhook_secret, previous: old });
    expect((await api.request('GET', `${BASE}/${created.json.id}`)).text).not.toContain(rotated.json.webhook_secret);

    const immediate = await api.request('POST', `${BASE}/${created.json.id}/rotate-secret`, {
      json: { webhook_secret: 'my-own-secret-123', grace_period_seconds: 0 },
    });
    expect(immediate.json).toMatchObject({ webhook_secret: 'my-own-secret-123', previous_secret_expires_at: null });
    const after = await api.storage.webhooks.get('acme', created.json.id);
    expect(api.platform.webhooks.secretsFor(after!)).toEqual({ current: 'my-own-secret-123', previous: null });

    const bad = await api.request('POST', `${BASE}/${created.json.id}/rotate-secret`, { json: { grace_period_seconds: -1 } });
    expect(bad.status).toBe(422);
  });
});
