import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, PlatformError, signatureHeaders, type AgentPlatform } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { startSubscriber } from '@agent-platform/testing/webhook-subscriber';
import type { OutboundOptions } from './options.js';

const alice = { userId: 'alice', orgId: 'acme' };
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A platform whose sender is driven by hand (`platform.outbound.tick()`) on a clock the test moves. */
async function setup(outbound: OutboundOptions = {}) {
  let at = Date.now();
  const clock = { now: () => new Date(at) };
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    clock,
    // Jitter at its midpoint: each wait is exactly the schedule's.
    outbound: { allowPrivateAddresses: true, send: false, random: () => 0.5, ...outbound },
  });
  const subscriber = await startSubscriber();
  cleanups.push(
    () => platform.stop(),
    () => subscriber.close(),
  );
  const webhook = await platform.webhooks.register(alice, { name: 'Linear', source: 'linear' });
  const send = (payload: unknown) => {
    const body = Buffer.from(JSON.stringify(payload));
    const headers = signatureHeaders({ scheme: 'hmac-sha256', secret: webhook.webhook_secret as string, body, now: clock.now() });
    return platform.events.ingest('acme', 'linear', { headers, body });
  };
  return { platform, subscriber, send, advance: (ms: number) => (at += ms), clock };
}

async function messagesOf(platform: AgentPlatform, subscriptionId: string, count: number) {
  await vi.waitFor(async () => expect((await platform.subscriptions.listMessages(alice, subscriptionId, { limit: 50, offset: 0 })).total).toBe(count));
  return (await platform.subscriptions.listMessages(alice, subscriptionId, { limit: 50, offset: 0 })).messages;
}

describe('outbound events', () => {
  it('signs each message per Standard Webhooks, verified by the standardwebhooks package', async () => {
    const { platform, subscriber, send } = await setup();
    const subscription = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['delivery.received'] });
    expect(subscription.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(await platform.subscriptions.get(alice, subscription.id)).not.toHaveProperty('secret');
    subscriber.useSecret(subscription.secret);
    const ingested = await send({ type: 'Issue', action: 'create' });

    const [message] = await messagesOf(platform, subscription.id, 1);
    expect(message).toMatchObject({ event_type: 'delivery.received', status: 'pending', attempt: 0 });
    expect(await platform.outbound.tick()).toBe(1);

    expect(subscriber.received).toHaveLength(1);
    const [request] = subscriber.received;
    expect(request?.verifyError).toBeNull();
    expect(request?.headers['webhook-id']).toBe(message?.id);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.verified).toMatchObject({
      type: 'delivery.received',
      data: { id: ingested.delivery_id, source: 'linear', event_key: 'Issue', status: 'unmatched' },
    });
    // The event's payload is not sent: a subscriber asks for the delivery if it wants it.
    expect(JSON.parse(request?.body ?? '{}').data).not.toHaveProperty('payload');

    const delivered = await platform.subscriptions.getMessage(alice, subscription.id, message!.id);
    expect(delivered).toMatchObject({ status: 'delivered', attempt: 1, next_attempt_at: null });
    expect(delivered.attempts).toEqual([{ attempt: 1, at: expect.any(String), status_code: 200, latency_ms: expect.any(Number), error: null }]);
    expect(delivered).not.toHaveProperty('lease_owner');
    expect((await platform.subscriptions.get(alice, subscription.id)).last_success_at).not.toBeNull();
  });

  it('sends only the event types a subscription asked for, only to enabled subscriptions of the org', async () => {
    const { platform, subscriber, send } = await setup();
    const runs = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['run.completed', 'run.failed'] });
    const disabled = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['delivery.received'], enabled: false });
    const other = await platform.subscriptions.create({ userId: 'bob', orgId: 'other' }, { url: subscriber.url, event_types: ['delivery.received'] });
    await send({ type: 'Issue' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const [principal, id] of [
      [alice, runs.id],
      [alice, disabled.id],
      [{ userId: 'bob', orgId: 'other' }, other.id],
    ] as const) {
      expect((await platform.subscriptions.listMessages(principal, id, { limit: 10, offset: 0 })).total).toBe(0);
    }
  });

  it('retries a failing subscriber with backoff on the clock, logging every attempt, until it answers 2xx', async () => {
    const { platform, subscriber, send, advance } = await setup();
    const subscription = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['delivery.received'] });
    subscriber.answer(500, 503, 204);
    await send({ type: 'Issue' });
    const [message] = await messagesOf(platform, subscription.id, 1);

    expect(await platform.outbound.tick()).toBe(1);
    let stored = await platform.subscriptions.getMessage(alice, subscription.id, message!.id);
    expect(stored).toMatchObject({ status: 'pending', attempt: 1, detail: 'answered 500' });
    expect(Date.parse(stored.next_attempt_at!) - Date.parse(stored.attempts[0]!.at)).toBe(5_000);
    // Not due yet: nothing is sent.
    expect(await platform.outbound.tick()).toBe(0);
    advance(4_999);
    expect(await platform.outbound.tick()).toBe(0);
    advance(1);
    expect(await platform.outbound.tick()).toBe(1);
    stored = await platform.subscriptions.getMessage(alice, subscription.id, message!.id);
    expect(stored).toMatchObject({ status: 'pending', attempt: 2 });
    expect(Date.parse(stored.next_attempt_at!) - Date.parse(stored.attempts[1]!.at)).toBe(60_000);
    expect((await platform.subscriptions.get(alice, subscription.id)).consecutive_failures).toBe(2);
    advance(60_000);
    expect(await platform.outbound.tick()).toBe(1);

    stored = await platform.subscriptions.getMessage(alice, subscription.id, message!.id);
    expect(stored).toMatchObject({ status: 'delivered', attempt: 3, detail: null });
    expect(stored.attempts.map((attempt) => [attempt.attempt, attempt.status_code, attempt.error])).toEqual([
      [1, 500, 'answered 500'],
      [2, 503, 'answered 503'],
      [3, 204, null],
    ]);
    // One webhook-id across the attempts, so the subscriber can drop repeats.
    expect(new Set(subscriber.received.map((request) => request.headers['webhook-id']))).toEqual(new Set([message!.id]));
    expect(await platform.subscriptions.get(alice, subscription.id)).toMatchObject({ consecutive_failures: 0, failing_since: null });
  });

  it('spreads retries with jitter of up to a fifth either way', async () => {
    const low = await setup({ random: () => 0 });
    const high = await setup({ random: () => 0.999_999 });
    for (const [{ platform, subscriber, send }, factor] of [
      [low, 0.8],
      [high, 1.2],
    ] as const) {
      const subscription = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['delivery.received'] });
      subscriber.answer(500);
      await send({ type: 'Issue' });
      const [message] = await messagesOf(platform, subscription.id, 1);
      await platform.outbound.tick();
      const stored = await platform.subscriptions.getMessage(alice, subscription.id, message!.id);
      expect(Date.parse(stored.next_attempt_at!) - Date.parse(stored.attempts[0]!.at)).toBeCloseTo(5_000 * factor, -1);
    }
  });

  it('gives a message up when the schedule runs out, and disables a subscription that keeps failing', async () => {
    const { platform, subscriber, send, advance } = await setup({ retryDelaysMs: [1_000, 1_000], disableAfter: { failures: 3, ms: 1_500 } });
    const failing = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['delivery.received'] });
    const watcher = await platform.subscriptions.create(alice, { url: `${subscriber.url}/watch`, event_types: ['subscription.disabled'] });
    subscriber.answer(503);
    await send({ type: 'Issue' });
    const [message] = await messagesOf(platform, failing.id, 1);
    await platform.outbound.tick();
    advance(1_000);
    await platform.outbound.tick();
    expect((await platform.subscriptions.get(alice, failing.id)).enabled).toBe(true);
    advance(1_000);
    await platform.outbound.tick();

    const stored = await platform.subscriptions.getMessage(alice, failing.id, message!.id);
    expect(stored).toMatchObject({ status: 'failed', attempt: 3, next_attempt_at: null, detail: 'gave up after 3 attempts: answered 503' });
    const disabled = await platform.subscriptions.get(alice, failing.id);
    expect(disabled).toMatchObject({ enabled: false, consecutive_failures: 3, disabled_reason: expect.stringContaining('disabled after 3 failed attempts') });

    // The org hears of it, through the subscriptions that asked.
    const [notice] = await messagesOf(platform, watcher.id, 1);
    expect(notice).toMatchObject({ event_type: 'subscription.disabled', payload: { type: 'subscription.disabled', data: { id: failing.id, enabled: false } } });
    expect(notice?.payload.data).not.toHaveProperty('secret_encrypted');

    // A disabled subscription gets no new messages, and replaying is refused until it is enabled again.
    await send({ type: 'Issue' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await platform.subscriptions.listMessages(alice, failing.id, { limit: 10, offset: 0 })).total).toBe(1);
    await expect(platform.subscriptions.replayMessage(alice, failing.id, message!.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    const enabled = await platform.subscriptions.update(alice, failing.id, { enabled: true });
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0, failing_since: null });
  });

  it('cancels the pending messages of a subscription disabled meanwhile', async () => {
    const { platform, subscriber, send } = await setup();
    const subscription = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['delivery.received'] });
    await send({ type: 'Issue' });
    const [message] = await messagesOf(platform, subscription.id, 1);
    await platform.subscriptions.update(alice, subscription.id, { enabled: false });
    expect(await platform.outbound.tick()).toBe(1);
    expect(subscriber.received).toHaveLength(0);
    expect(await platform.subscriptions.getMessage(alice, subscription.id, message!.id)).toMatchObject({
      status: 'cancelled',
      detail: 'the subscription is disabled',
      attempt: 0,
    });
  });

  it('replays a message with the same webhook-id, counting its attempts on', async () => {
    const { platform, subscriber, send } = await setup();
    const subscription = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['delivery.received'] });
    subscriber.useSecret(subscription.secret);
    await send({ type: 'Issue' });
    const [message] = await messagesOf(platform, subscription.id, 1);
    await expect(platform.subscriptions.replayMessage(alice, subscription.id, message!.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    await platform.outbound.tick();
    const replayed = await platform.subscriptions.replayMessage(alice, subscription.id, message!.id);
    expect(replayed).toMatchObject({ status: 'pending', attempt: 1 });
    await platform.outbound.tick();
    expect(await platform.subscriptions.getMessage(alice, subscription.id, message!.id)).toMatchObject({ status: 'delivered', attempt: 2 });
    expect(subscriber.received.map((request) => [request.headers['webhook-id'], request.verifyError])).toEqual([
      [message!.id, null],
      [message!.id, null],
    ]);
    await expect(platform.subscriptions.replayMessage(alice, subscription.id, 'msg_nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('signs with the new secret from a rotation on', async () => {
    const { platform, subscriber, send } = await setup();
    const subscription = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['delivery.received'] });
    const rotated = await platform.subscriptions.rotateSecret(alice, subscription.id);
    expect(rotated.secret).not.toBe(subscription.secret);
    subscriber.useSecret(rotated.secret);
    await send({ type: 'Issue' });
    await messagesOf(platform, subscription.id, 1);
    await platform.outbound.tick();
    expect(subscriber.received[0]?.verifyError).toBeNull();
  });

  it('does not follow redirects', async () => {
    const { platform, subscriber, send } = await setup();
    const subscription = await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['delivery.received'] });
    subscriber.answer(302);
    await send({ type: 'Issue' });
    const [message] = await messagesOf(platform, subscription.id, 1);
    await platform.outbound.tick();
    expect(subscriber.received).toHaveLength(1);
    expect((await platform.subscriptions.getMessage(alice, subscription.id, message!.id)).attempts[0]).toMatchObject({
      status_code: 302,
      error: 'answered 302: redirects are not followed',
    });
  });

  it('tells subscribers when runs start, complete, fail and are cancelled', async () => {
    const { platform, subscriber } = await setup();
    const subscription = await platform.subscriptions.create(alice, {
      url: subscriber.url,
      event_types: ['run.started', 'run.completed', 'run.failed', 'run.cancelled'],
    });
    const automation = await platform.automations.create(alice, {
      name: 'triage',
      instructions: 'Triage',
      trigger: { type: 'event', source: 'linear', on: 'Issue' },
    });
    const run = await platform.automations.dispatch(alice, automation.id, {});
    await platform.automations.cancelRun(alice, run.id);
    const [message] = await messagesOf(platform, subscription.id, 1);
    expect(message).toMatchObject({
      event_type: 'run.cancelled',
      payload: { type: 'run.cancelled', data: { id: run.id, automation_id: automation.id, status: 'CANCELLED', error_detail: 'cancelled by user' } },
    });
    expect(message?.payload.data).not.toHaveProperty('lease_owner');
  });
});

describe('subscriber addresses (server-side request forgery)', () => {
  it('refuses loopback, private and link-local URLs at save unless the host allows them', async () => {
    const platform = createAgentPlatform({
      storage: createMemoryStorage(),
      secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
      publicUrl: 'http://localhost',
      outbound: { send: false },
    });
    cleanups.push(() => platform.stop());
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://api.localhost/hook',
      'http://10.0.0.5/hook',
      'http://192.168.1.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[fd00::1]/hook',
      'http://2130706433/hook',
      'http://0x7f.1/hook',
      'http://0.0.0.0/hook',
    ]) {
      const error = await platform.subscriptions.create(alice, { url, event_types: ['run.failed'] }).catch((caught: unknown) => caught);
      expect(error, url).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).issues?.[0], url).toMatchObject({ loc: ['body', 'url'], msg: expect.stringContaining('must reach a public address') });
    }
    for (const url of ['ftp://example.com/x', 'http://user:pass@example.com/x', '/relative', 'javascript:alert(1)']) {
      await expect(platform.subscriptions.create(alice, { url, event_types: ['run.failed'] }), url).rejects.toBeInstanceOf(PlatformError);
    }
    const publicOne = await platform.subscriptions.create(alice, { url: 'https://hooks.example.com/agent', event_types: ['run.failed'] });
    expect(publicOne.url).toBe('https://hooks.example.com/agent');
  });
});
