/**
 * `client.subscriptions` against the real handler in process, with the engine started: a signed
 * event reaches a subscriber on loopback (allowed here with `outbound.allowPrivateAddresses`),
 * which verifies it with the `standardwebhooks` package as a real receiver would. Answers are
 * parsed with the server's own schemas.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  outboundMessageListSchema,
  outboundMessageSchema,
  subscriptionListSchema,
  subscriptionSchema,
  subscriptionWithSecretSchema,
} from '@agent-platform/core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, isAgentPlatformError, type AgentPlatformClient, type AgentPlatformError } from './index.js';
import { startInProcess, type InProcessService } from '../test-support/in-process.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver that keeps what it is sent and answers 200. */
async function startReceiver() {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function failure(promise: Promise<unknown>): Promise<AgentPlatformError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
  if (!isAgentPlatformError(error)) throw error;
  return error;
}

let service: InProcessService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let alice: AgentPlatformClient;

beforeAll(async () => {
  service = await startInProcess({ outbound: { allowPrivateAddresses: true, pollIntervalMs: 50 } });
  receiver = await startReceiver();
  alice = service.client('alice');
});
afterAll(async () => {
  await service.close();
  await receiver.close();
});

describe('subscriptions', () => {
  it('creates (the secret once), lists, gets, updates, rotates and deletes', async () => {
    const created = subscriptionWithSecretSchema.parse(
      await alice.subscriptions.create({ url: 'https://hooks.example.com/a', event_types: ['run.failed'], description: 'pager' }),
    );
    expect(created.secret).toMatch(/^whsec_/);
    const got = subscriptionSchema.parse(await alice.subscriptions.get(created.id));
    expect(got).not.toHaveProperty('secret');
    const listed = subscriptionListSchema.parse(await alice.subscriptions.list({ limit: 100 }));
    expect(listed.subscriptions.map((subscription) => subscription.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect((await collect(alice.subscriptions.iterate({ pageSize: 1 }))).map((subscription) => subscription.id)).toContain(created.id);
    expect(await alice.subscriptions.update(created.id, { enabled: false, event_types: ['run.failed', 'run.cancelled'] })).toMatchObject({
      enabled: false,
      event_types: ['run.failed', 'run.cancelled'],
    });
    const rotated = subscriptionWithSecretSchema.parse(await alice.subscriptions.rotateSecret(created.id));
    expect(rotated.secret).not.toBe(created.secret);
    await expect(alice.subscriptions.delete(created.id)).resolves.toBeUndefined();
    expect((await failure(alice.subscriptions.get(created.id))).code).toBe('NOT_FOUND');
  });

  it('422s name the field; another org’s subscription is a 404', async () => {
    const bad = await failure(alice.subscriptions.create({ url: 'ftp://hooks.example.com', event_types: ['run.failed'] }));
    expect([bad.status, bad.code]).toEqual([422, 'VALIDATION_FAILED']);
    expect(bad.issues.map((issue) => issue.loc)).toContainEqual(['body', 'url']);
    const created = await alice.subscriptions.create({ url: 'https://hooks.example.com/b', event_types: ['run.failed'] });
    const mallory = service.client('mallory');
    expect((await failure(mallory.subscriptions.get(created.id))).status).toBe(404);
    expect((await failure(mallory.subscriptions.listMessages(created.id))).status).toBe(404);
    expect((await failure(alice.subscriptions.getMessage(created.id, 'msg_missing'))).status).toBe(404);
    expect((await failure(alice.subscriptions.replayMessage(created.id, 'msg_missing'))).status).toBe(404);
  });

  it('delivers a signed event, logs the attempt, and replays it with the same webhook-id', async () => {
    const webhook = await alice.webhooks.register({ name: 'Outbound', source: 'outbound-src' });
    const subscription = await alice.subscriptions.create({ url: receiver.url, event_types: ['delivery.received'] });
    const sent = await alice.events.send({ org_id: 'acme', source: 'outbound-src', secret: webhook.webhook_secret!, payload: { type: 'Issue' } });

    await expect.poll(async () => (await alice.subscriptions.listMessages(subscription.id, { status: 'delivered' })).total, { timeout: 10_000 }).toBe(1);
    const page = outboundMessageListSchema.parse(await alice.subscriptions.listMessages(subscription.id));
    const message = page.messages[0]!;
    expect(message).toMatchObject({ event_type: 'delivery.received', status: 'delivered', attempt: 1, next_attempt_at: null });
    expect(message.attempts).toEqual([{ attempt: 1, at: expect.any(String), status_code: 200, latency_ms: expect.any(Number), error: null }]);
    expect(outboundMessageSchema.parse(await alice.subscriptions.getMessage(subscription.id, message.id)).id).toBe(message.id);

    const [first] = receiver.received;
    const verified = new Webhook(subscription.secret).verify(first!.body, first!.headers as Record<string, string>) as { type: string; data: { id: string } };
    expect(verified).toMatchObject({ type: 'delivery.received', data: { id: sent.delivery_id } });
    expect(first!.headers['webhook-id']).toBe(message.id);

    const replayed = await alice.subscriptions.replayMessage(subscription.id, message.id);
    expect(replayed).toMatchObject({ id: message.id, status: 'pending' });
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(message.id);
    await expect.poll(async () => (await alice.subscriptions.getMessage(subscription.id, message.id)).attempts.length, { timeout: 10_000 }).toBe(2);
    expect((await collect(alice.subscriptions.iterateMessages(subscription.id, { status: 'delivered' }))).map((each) => each.id)).toEqual([message.id]);
  });
});
