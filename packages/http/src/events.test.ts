import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';
import { createAutomation, registerWebhook, sendEvent } from '../test-support/events.js';

const linearIssue = { type: 'Issue', action: 'create', data: { title: 'Login broken', labels: ['bug'], priority: 1 } };

describe.each(BINDINGS)('inbound custom events on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding, { platform: { events: { maxBodyBytes: 64 * 1024 }, webhookSecretGraceSeconds: 3600 } });
  });
  afterAll(() => api.close());

  const deliveries = async (as: 'alice' | 'mallory' = 'alice') => (await api.request('GET', '/api/automation/v1/deliveries', { as })).json;

  it('verifies, matches, creates PENDING runs and logs the outcome of each candidate', async () => {
    const { secret } = await registerWebhook(api, { name: 'Linear', source: 'linear', signature_header: 'Linear-Signature' });
    const matching = await createAutomation(
      api,
      { source: 'linear', on: 'Issue', filter: "action == 'create' && icontains(data.title, 'LOGIN')" },
      'alice',
      'login bugs',
    );
    const filtered = await createAutomation(api, { source: 'linear', on: 'Issue', filter: "action == 'remove'" }, 'alice', 'removals');
    const otherEvent = await createAutomation(api, { source: 'linear', on: 'Comment' }, 'alice', 'comments');
    const broken = await createAutomation(api, { source: 'linear', on: 'Issue', filter: "icontains(data.missing, 'x')" }, 'alice', 'broken');

    const response = await sendEvent(api, 'acme', 'linear', linearIssue, { secret, signatureHeader: 'Linear-Signature' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ received: true, delivery_id: expect.any(String), matched: 1, runs_created: [expect.any(String)] });

    const delivery = await api.request('GET', `/api/automation/v1/deliveries/${response.json.delivery_id}`);
    expect(delivery.json).toMatchObject({
      status: 'matched',
      event_key: 'Issue',
      source: 'linear',
      payload: linearIssue,
      runs_created: response.json.runs_created,
    });
    const byId = Object.fromEntries(delivery.json.outcomes.map((outcome: { automation_id: string }) => [outcome.automation_id, outcome]));
    expect(byId[matching]).toMatchObject({ matched: true, reason: 'matched', run_id: response.json.runs_created[0] });
    expect(byId[filtered]).toMatchObject({ matched: false, reason: 'filter_false' });
    expect(byId[otherEvent]).toMatchObject({ matched: false, reason: 'event_pattern' });
    expect(byId[broken]).toMatchObject({ matched: false, reason: 'filter_error', error: expect.any(String) });

    const runs = await api.request('GET', `/api/automation/v1/${matching}/runs`);
    expect(runs.json.runs[0]).toMatchObject({ status: 'PENDING', trigger: 'event', delivery_id: response.json.delivery_id, event_key: 'Issue' });
  });

  it('answers 404 for an unknown or disabled source, and for another org’s source', async () => {
    expect((await sendEvent(api, 'acme', 'nope', linearIssue, { secret: 'x'.repeat(10) })).status).toBe(404);
    const { id, secret } = await registerWebhook(api, { name: 'Off', source: 'off' });
    await api.request('PATCH', `/api/automation/v1/webhooks/${id}`, { json: { enabled: false } });
    expect((await sendEvent(api, 'acme', 'off', linearIssue, { secret })).status).toBe(404);
    expect((await sendEvent(api, 'evil', 'linear', linearIssue, { secret: 'test-secret-0123456789' })).status).toBe(404);
  });

  it('answers 401 for a missing, wrong or tampered signature, and stores nothing', async () => {
    const { secret } = await registerWebhook(api, { name: 'Strict', source: 'strict' });
    const before = (await deliveries()).total;
    const unsigned = await api.request('POST', '/api/automation/v1/events/acme/strict', {
      as: null,
      body: JSON.stringify(linearIssue),
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(401);
    expect((await sendEvent(api, 'acme', 'strict', linearIssue, { secret: 'wrong-secret-000000' })).status).toBe(401);
    const tampered = await sendEvent(api, 'acme', 'strict', { ...linearIssue, action: 'remove' }, { secret, signedBody: JSON.stringify(linearIssue) });
    expect(tampered.status).toBe(401);
    expect((await deliveries()).total).toBe(before);
  });

  it('answers 413 over the limit and 400 for a signed body that is not JSON', async () => {
    const { secret } = await registerWebhook(api, { name: 'Limits', source: 'limits' });
    const big = JSON.stringify({ type: 'Issue', pad: 'x'.repeat(70 * 1024) });
    expect((await sendEvent(api, 'acme', 'limits', big, { secret })).status).toBe(413);
    const notJson = await sendEvent(api, 'acme', 'limits', '{"type": ', { secret });
    expect(notJson.status).toBe(400);
  });

  it('drops redeliveries: by delivery id header, and by body hash when there is none', async () => {
    const { secret } = await registerWebhook(api, { name: 'Dedup', source: 'dedup', delivery_id_header: 'X-Delivery' });
    await createAutomation(api, { source: 'dedup', on: 'Issue' });
    const first = await sendEvent(api, 'acme', 'dedup', linearIssue, { secret, headers: { 'x-delivery': 'abc-1' } });
    expect(first.json.matched).toBe(1);
    const again = await sendEvent(api, 'acme', 'dedup', { ...linearIssue, retry: 1 }, { secret, headers: { 'x-delivery': 'abc-1' } });
    expect(again.json).toEqual({ received: true, duplicate: true, matched: 0, runs_created: [] });

    const { secret: hashSecret } = await registerWebhook(api, { name: 'Hash', source: 'hash' });
    await createAutomation(api, { source: 'hash', on: 'Issue' });
    expect((await sendEvent(api, 'acme', 'hash', linearIssue, { secret: hashSecret })).json.matched).toBe(1);
    expect((await sendEvent(api, 'acme', 'hash', linearIssue, { secret: hashSecret })).json.duplicate).toBe(true);
    expect((await sendEvent(api, 'acme', 'hash', { ...linearIssue, n: 2 }, { secret: hashSecret })).json.matched).toBe(1);
    const log = await api.request('GET', '/api/automation/v1/deliveries?source=hash&status=duplicate');
    expect(log.json.total).toBe(1);
  });

  it('creates the runs of one event exactly once when it is delivered many times at once', async () => {
    const { secret } = await registerWebhook(api, { name: 'Burst', source: 'burst' });
    const automation = await createAutomation(api, { source: 'burst', on: 'Issue' });
    const responses = await Promise.all(
      Array.from({ length: 25 }, () => sendEvent(api, 'acme', 'burst', linearIssue, { secret, headers: { 'webhook-id': 'msg_same' } })),
    );
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(responses.filter((response) => response.json.matched === 1)).toHaveLength(1);
    expect((await api.request('GET', `/api/automation/v1/${automation}/runs`)).json.total).toBe(1);
  });

  it('takes the event key from a header, and ignores a delivery whose key is missing or not a name', async () => {
    const { secret } = await registerWebhook(api, { name: 'Header', source: 'by-header', event_key_header: 'X-Event-Type' });
    await createAutomation(api, { source: 'by-header', on: 'deploy.*' });
    const keyed = await sendEvent(api, 'acme', 'by-header', { any: 1 }, { secret, headers: { 'x-event-type': 'deploy.finished' } });
    expect(keyed.json.matched).toBe(1);
    const missing = await sendEvent(api, 'acme', 'by-header', { any: 2 }, { secret });
    expect(missing.status).toBe(200);
    expect(missing.json.matched).toBe(0);
    const log = await api.request('GET', `/api/automation/v1/deliveries/${missing.json.delivery_id}`);
    expect(log.json).toMatchObject({ status: 'ignored', event_key: null, detail: expect.stringMatching(/X-Event-Type/) });

    const { secret: exprSecret } = await registerWebhook(api, { name: 'Expr', source: 'by-expr', event_key_expr: 'meta.kind' });
    await createAutomation(api, { source: 'by-expr', on: '42' });
    expect((await sendEvent(api, 'acme', 'by-expr', { meta: { kind: 42 } }, { secret: exprSecret })).json.matched).toBe(1);
    for (const kind of [null, ['a'], { a: 1 }]) {
      const ignored = await sendEvent(api, 'acme', 'by-expr', { meta: { kind }, n: Math.random() }, { secret: exprSecret });
      expect(ignored.json.matched).toBe(0);
      const entry = await api.request('GET', `/api/automation/v1/deliveries/${ignored.json.delivery_id}`);
      expect(entry.json.status).toBe('ignored');
    }
  });

  it.each([
    ['standard-webhooks', 'webhook-signature'],
    ['stripe', 'Stripe-Signature'],
    ['slack', 'X-Slack-Signature'],
  ] as const)('verifies the %s scheme, refusing a stale timestamp', async (scheme, signatureHeader) => {
    const source = `scheme-${scheme}`;
    const secret = scheme === 'standard-webhooks' ? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' : 'scheme-secret-0123456789';
    await registerWebhook(api, { name: scheme, source, signature_scheme: scheme, signature_header: signatureHeader, webhook_secret: secret });
    await createAutomation(api, { source, on: 'Issue' });
    expect((await sendEvent(api, 'acme', source, linearIssue, { scheme, secret, id: 'msg_1' })).json.matched).toBe(1);
    const stale = await sendEvent(api, 'acme', source, { ...linearIssue, n: 1 }, { scheme, secret, id: 'msg_2', now: new Date(Date.now() - 10 * 60 * 1000) });
    expect(stale.status).toBe(401);
  });

  it('accepts an hmac-sha256 signature with or without the sha256= prefix', async () => {
    const { secret } = await registerWebhook(api, { name: 'Prefix', source: 'prefix' });
    const withPrefix = await sendEvent(api, 'acme', 'prefix', { type: 'a' }, { secret });
    expect(withPrefix.status).toBe(200);
    const { createHmac } = await import('node:crypto');
    const body = JSON.stringify({ type: 'b' });
    const bare = createHmac('sha256', secret).update(body).digest('hex');
    const response = await api.request('POST', '/api/automation/v1/events/acme/prefix', {
      as: null,
      body,
      headers: { 'content-type': 'application/json', 'x-signature-256': bare },
    });
    expect(response.status).toBe(200);
  });

  it('verifies with both secrets during a rotation grace period, and only the new one without', async () => {
    const { id, secret: oldSecret } = await registerWebhook(api, { name: 'Rotate', source: 'rotate' });
    const rotated = await api.request('POST', `/api/automation/v1/webhooks/${id}/rotate-secret`);
    const newSecret = rotated.json.webhook_secret as string;
    expect((await sendEvent(api, 'acme', 'rotate', { type: 'x', n: 1 }, { secret: oldSecret })).status).toBe(200);
    expect((await sendEvent(api, 'acme', 'rotate', { type: 'x', n: 2 }, { secret: newSecret })).status).toBe(200);
    await api.request('POST', `/api/automation/v1/webhooks/${id}/rotate-secret`, { json: { webhook_secret: 'third-secret-0123456', grace_period_seconds: 0 } });
    expect((await sendEvent(api, 'acme', 'rotate', { type: 'x', n: 3 }, { secret: newSecret })).status).toBe(401);
    expect((await sendEvent(api, 'acme', 'rotate', { type: 'x', n: 4 }, { secret: 'third-secret-0123456' })).status).toBe(200);
  });

  it('never lets one org’s delivery reach another org’s automations', async () => {
    const mine = await registerWebhook(api, { name: 'Shared name', source: 'shared' });
    const theirs = await registerWebhook(api, { name: 'Shared name', source: 'shared', webhook_secret: 'their-secret-0123456' }, 'mallory');
    const myAutomation = await createAutomation(api, { source: 'shared', on: 'Issue' });
    const theirAutomation = await createAutomation(api, { source: 'shared', on: 'Issue' }, 'mallory');
    const response = await sendEvent(api, 'acme', 'shared', linearIssue, { secret: mine.secret });
    expect(response.json.matched).toBe(1);
    expect((await api.request('GET', `/api/automation/v1/${myAutomation}/runs`)).json.total).toBe(1);
    expect((await api.request('GET', `/api/automation/v1/${theirAutomation}/runs`, { as: 'mallory' })).json.total).toBe(0);
    expect((await sendEvent(api, 'evil', 'shared', linearIssue, { secret: mine.secret })).status).toBe(401);
    expect((await api.request('GET', `/api/automation/v1/deliveries/${response.json.delivery_id}`, { as: 'mallory' })).status).toBe(404);
    expect(theirs.id).not.toBe(mine.id);
  });

  it('replays a delivery against the automations as they are now', async () => {
    const { secret } = await registerWebhook(api, { name: 'Replay', source: 'replay' });
    const sent = await sendEvent(api, 'acme', 'replay', linearIssue, { secret });
    expect(sent.json.matched).toBe(0);
    const automation = await createAutomation(api, { source: 'replay', on: 'Issue' });
    const replayed = await api.request('POST', `/api/automation/v1/deliveries/${sent.json.delivery_id}/replay`, {
      headers: { 'content-type': 'application/json' },
    });
    expect(replayed.status).toBe(200);
    expect(replayed.json.matched).toBe(1);
    const entry = await api.request('GET', `/api/automation/v1/deliveries/${replayed.json.delivery_id}`);
    expect(entry.json).toMatchObject({ replay_of: sent.json.delivery_id, status: 'matched' });
    expect((await api.request('GET', `/api/automation/v1/${automation}/runs`)).json.total).toBe(1);
    expect((await api.request('POST', `/api/automation/v1/deliveries/${sent.json.delivery_id}/replay`, { as: 'mallory' })).status).toBe(404);
  });

  it('lists the delivery log newest first without payloads', async () => {
    const log = await api.request('GET', '/api/automation/v1/deliveries?limit=5');
    expect(log.status).toBe(200);
    expect(log.json.deliveries.length).toBeLessThanOrEqual(5);
    for (const entry of log.json.deliveries) expect(entry).not.toHaveProperty('payload');
    const times = log.json.deliveries.map((entry: { received_at: string }) => entry.received_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect((await api.request('GET', '/api/automation/v1/deliveries?status=bogus')).status).toBe(422);
    expect((await api.request('GET', '/api/automation/v1/deliveries/dlv_unknown')).status).toBe(404);
  });
});
