import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebhook, sendEvent } from '../test-support/events.js';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const BASE = '/api/automation/v1/subscriptions';
const URL_OK = 'https://hooks.example.com/agent-platform';
const valid = { url: URL_OK, event_types: ['run.completed', 'run.failed'] };

describe.each(BINDINGS)('outbound-event subscriptions on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    // Not started: nothing is sent, so a message stays `pending` until a test moves it.
    api = await startHarness(binding);
  });
  afterAll(() => api.close());

  it('creates (201) with the secret shown once; get and list never show it', async () => {
    const created = await api.request('POST', BASE, { json: { ...valid, description: 'CI notifier' } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: expect.any(String),
      org_id: 'acme',
      url: URL_OK,
      event_types: ['run.completed', 'run.failed'],
      description: 'CI notifier',
      enabled: true,
      disabled_reason: null,
      consecutive_failures: 0,
      failing_since: null,
      last_success_at: null,
      secret: expect.stringMatching(/^whsec_/),
    });
    const secret = created.json.secret as string;
    const got = await api.request('GET', `${BASE}/${created.json.id}`);
    expect(got.status).toBe(200);
    expect(got.json).not.toHaveProperty('secret');
    expect(got.text).not.toContain(secret);
    const listed = await api.request('GET', BASE);
    expect(listed.status).toBe(200);
    expect(listed.json.subscriptions.map((subscription: { id: string }) => subscription.id)).toContain(created.json.id);
    expect(listed.text).not.toContain(secret);
    expect(JSON.stringify(await api.storage.subscriptions.get('acme', created.json.id))).not.toContain(secret);
  });

  it('is not taken for an automation id by /api/automation/v1/{id}', async () => {
    const listed = await api.request('GET', BASE);
    expect(listed.status).toBe(200);
    expect(listed.json).toHaveProperty('subscriptions');
    expect((await api.request('GET', `${BASE}/sub_missing`)).json).toEqual({ detail: 'Subscription not found' });
  });

  it.each([
    ['an ftp URL', { ...valid, url: 'ftp://hooks.example.com/x' }, ['body', 'url']],
    ['a URL with credentials', { ...valid, url: 'https://user:pass@hooks.example.com/x' }, ['body', 'url']],
    ['a relative URL', { ...valid, url: '/hooks' }, ['body', 'url']],
    ['an unknown event type', { ...valid, event_types: ['run.exploded'] }, ['body', 'event_types', 0]],
    ['no event types', { ...valid, event_types: [] }, ['body', 'event_types']],
    ['a loopback address', { ...valid, url: 'http://127.0.0.1:9/x' }, ['body', 'url']],
    ['localhost', { ...valid, url: 'http://localhost/x' }, ['body', 'url']],
    ['a private address', { ...valid, url: 'http://10.0.0.8/x' }, ['body', 'url']],
    ['the cloud metadata address', { ...valid, url: 'http://169.254.169.254/latest' }, ['body', 'url']],
  ])('answers 422 for %s', async (_label, body, loc) => {
    const response = await api.request('POST', BASE, { json: body });
    expect(response.status).toBe(422);
    expect(response.json.detail.map((issue: { loc: unknown[] }) => issue.loc)).toContainEqual(loc);
  });

  it('refuses a private address on PATCH too', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const response = await api.request('PATCH', `${BASE}/${created.json.id}`, { json: { url: 'http://127.0.0.1:9/x' } });
    expect(response.status).toBe(422);
    expect(response.json.detail[0].loc).toEqual(['body', 'url']);
  });

  it('pages the list and validates its query', async () => {
    for (let i = 0; i < 3; i++) await api.request('POST', BASE, { as: 'bob', json: { ...valid, description: `page ${i}` } });
    const all = await api.request('GET', BASE);
    expect(all.json.total).toBe(all.json.subscriptions.length);
    const page = await api.request('GET', `${BASE}?limit=2&offset=1`);
    expect(page.json.subscriptions).toHaveLength(2);
    expect(page.json.subscriptions[0].id).toBe(all.json.subscriptions[1].id);
    const bad = await api.request('GET', `${BASE}?limit=0`);
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['query', 'limit']);
  });

  it('updates any subset (PATCH) and deletes (204)', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const id = created.json.id as string;
    const updated = await api.request('PATCH', `${BASE}/${id}`, { json: { event_types: ['delivery.received'], description: 'renamed', enabled: false } });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ id, url: URL_OK, event_types: ['delivery.received'], description: 'renamed', enabled: false });
    expect(updated.json).not.toHaveProperty('secret');
    expect((await api.request('PATCH', `${BASE}/${id}`, { json: { event_types: ['nope'] } })).status).toBe(422);
    expect((await api.request('DELETE', `${BASE}/${id}`)).status).toBe(204);
    expect((await api.request('GET', `${BASE}/${id}`)).status).toBe(404);
    expect((await api.request('DELETE', `${BASE}/${id}`)).status).toBe(404);
  });

  it('rotates the secret (200): a new one, shown only in that answer', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const rotated = await api.request('POST', `${BASE}/${created.json.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(created.json.secret);
    expect((await api.request('GET', `${BASE}/${created.json.id}`)).text).not.toContain(rotated.json.secret);
    // An empty JSON object is accepted too, as on the platform's other actions.
    expect((await api.request('POST', `${BASE}/${created.json.id}/rotate-secret`, { json: {} })).status).toBe(200);
  });

  it('lists no messages for a new subscription, and answers 404 for an unknown message', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const id = created.json.id as string;
    const messages = await api.request('GET', `${BASE}/${id}/messages?status=pending&limit=10`);
    expect(messages.status).toBe(200);
    expect(messages.json).toEqual({ messages: [], total: 0 });
    expect((await api.request('GET', `${BASE}/${id}/messages?status=lost`)).status).toBe(422);
    const missing = await api.request('GET', `${BASE}/${id}/messages/msg_missing`);
    expect([missing.status, missing.json]).toEqual([404, { detail: 'Message not found' }]);
    expect((await api.request('POST', `${BASE}/${id}/messages/msg_missing/replay`)).status).toBe(404);
    expect((await api.request('GET', `${BASE}/sub_missing/messages`)).status).toBe(404);
    // An id no record can have is refused before storage, with the detail of what it names.
    const implausible = await api.request('GET', `${BASE}/${id}/messages/${'m'.repeat(201)}`);
    expect([implausible.status, implausible.json]).toEqual([404, { detail: 'Message not found' }]);
  });

  it('hides another org’s subscription behind 404 for every verb', async () => {
    const created = await api.request('POST', BASE, { json: valid });
    const id = created.json.id as string;
    expect((await api.request('GET', `${BASE}/${id}`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('PATCH', `${BASE}/${id}`, { as: 'mallory', json: { enabled: false } })).status).toBe(404);
    expect((await api.request('DELETE', `${BASE}/${id}`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('POST', `${BASE}/${id}/rotate-secret`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('GET', `${BASE}/${id}/messages`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('GET', BASE, { as: 'mallory' })).json.subscriptions).toEqual([]);
    expect((await api.request('GET', `${BASE}/${id}`, { as: 'bob' })).status).toBe(200);
  });

  it('needs credentials', async () => {
    expect((await api.request('GET', BASE, { as: null })).status).toBe(401);
    expect((await api.request('POST', BASE, { as: null, json: valid })).status).toBe(401);
  });
});

describe.each(BINDINGS)('subscriptions to private addresses on %s, when the host allows them', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding, { platform: { outbound: { allowPrivateAddresses: true } } });
  });
  afterAll(() => api.close());

  it.each(['http://127.0.0.1:9/x', 'http://localhost/x', 'http://10.0.0.8/x'])('accepts %s', async (url) => {
    const created = await api.request('POST', BASE, { json: { url, event_types: ['run.failed'] } });
    expect(created.status).toBe(201);
    expect(created.json.url).toBe(url);
  });

  it('still refuses what is not an http(s) URL without credentials', async () => {
    expect((await api.request('POST', BASE, { json: { url: 'ftp://127.0.0.1/x', event_types: ['run.failed'] } })).status).toBe(422);
    expect((await api.request('POST', BASE, { json: { url: 'http://a:b@127.0.0.1/x', event_types: ['run.failed'] } })).status).toBe(422);
  });

  it('lists a delivery’s message, gets it with its attempts, and replays it once it is no longer pending (202)', async () => {
    const { secret } = await registerWebhook(api, { name: 'Tracker', source: 'tracker' });
    const created = await api.request('POST', BASE, { json: { url: 'http://127.0.0.1:9/hook', event_types: ['delivery.received'] } });
    const id = created.json.id as string;
    expect((await sendEvent(api, 'acme', 'tracker', { type: 'Issue' }, { secret })).status).toBe(200);
    // Messages are stored just after the delivery commits.
    await expect.poll(async () => (await api.request('GET', `${BASE}/${id}/messages`)).json.total).toBe(1);
    const listed = await api.request('GET', `${BASE}/${id}/messages?status=pending`);
    const message = listed.json.messages[0];
    expect(message).toMatchObject({ subscription_id: id, event_type: 'delivery.received', status: 'pending', attempt: 0, attempts: [] });
    expect(message.payload).toMatchObject({ type: 'delivery.received', data: { source: 'tracker' } });
    expect((await api.request('GET', `${BASE}/${id}/messages?status=delivered`)).json.total).toBe(0);
    const got = await api.request('GET', `${BASE}/${id}/messages/${message.id}`);
    expect([got.status, got.json.id]).toEqual([200, message.id]);

    const pending = await api.request('POST', `${BASE}/${id}/messages/${message.id}/replay`);
    expect(pending.status).toBe(409);
    // As the sender leaves a message that failed for good.
    await api.storage.outboundMessages.transition(
      'acme',
      message.id,
      { from: ['pending'] },
      { status: 'failed', next_attempt_at: null, detail: 'gave up', updated_at: new Date().toISOString() },
    );
    const replayed = await api.request('POST', `${BASE}/${id}/messages/${message.id}/replay`);
    expect(replayed.status).toBe(202);
    expect(replayed.json).toMatchObject({ id: message.id, status: 'pending', detail: null });
    // Another org cannot read or replay it.
    expect((await api.request('GET', `${BASE}/${id}/messages/${message.id}`, { as: 'mallory' })).status).toBe(404);
    expect((await api.request('POST', `${BASE}/${id}/messages/${message.id}/replay`, { as: 'mallory' })).status).toBe(404);
  });

  it('refuses to replay while the subscription is disabled (409)', async () => {
    const { secret } = await registerWebhook(api, { name: 'Second', source: 'second' });
    const created = await api.request('POST', BASE, { json: { url: 'http://127.0.0.1:9/second', event_types: ['delivery.received'] } });
    const id = created.json.id as string;
    await sendEvent(api, 'acme', 'second', { type: 'Issue' }, { secret });
    await expect.poll(async () => (await api.request('GET', `${BASE}/${id}/messages`)).json.total).toBe(1);
    const [message] = (await api.request('GET', `${BASE}/${id}/messages`)).json.messages;
    await api.storage.outboundMessages.transition(
      'acme',
      message.id,
      { from: ['pending'] },
      { status: 'failed', next_attempt_at: null, detail: 'gave up', updated_at: new Date().toISOString() },
    );
    await api.request('PATCH', `${BASE}/${id}`, { json: { enabled: false } });
    const refused = await api.request('POST', `${BASE}/${id}/messages/${message.id}/replay`);
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toContain('disabled');
  });
});
