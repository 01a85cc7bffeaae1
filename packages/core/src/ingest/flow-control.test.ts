import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, PlatformError, signatureHeaders, type Run } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';

const alice = { userId: 'alice', orgId: 'acme' };

async function setup(flow: Record<string, unknown>) {
  let at = Date.parse('2026-11-23T12:00:00Z');
  const clock = { now: () => new Date(at) };
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    clock,
    outbound: { send: false },
  });
  const webhook = await platform.webhooks.register(alice, { name: 'Forge', source: 'forge' });
  const automation = await platform.automations.create(alice, {
    name: 'review',
    instructions: 'Review the pull request',
    trigger: { type: 'event', source: 'forge', on: 'pull_request' },
    ...flow,
  });
  /** One event for pull request `number`, a second after the last (each body distinct: a repeated body is a redelivery). */
  let sent = 0;
  const push = async (number: number | null) => {
    at += 1000;
    sent += 1;
    const body = Buffer.from(JSON.stringify({ type: 'pull_request', pull_request: number === null ? null : { number }, sent }));
    const headers = signatureHeaders({ scheme: 'hmac-sha256', secret: webhook.webhook_secret as string, body, now: clock.now() });
    const result = await platform.events.ingest('acme', 'forge', { headers, body });
    return result.runs_created[0] as string;
  };
  const run = (id: string): Promise<Run> => platform.automations.getRun(alice, id);
  const claim = (max = 10) =>
    platform.storage.runQueue.claim({ owner: 'w1', max, leaseMs: 60_000, now: clock.now(), limits: { perOrg: Infinity, global: Infinity } });
  return { platform, automation, push, run, claim, advance: (ms: number) => (at += ms), clock };
}

describe('flow control', () => {
  it('cancel_previous: a new event for a key cancels the live runs with that key, saying which run superseded them', async () => {
    const { push, run, claim } = await setup({ concurrency_key: 'pull_request.number', on_conflict: 'cancel_previous' });
    const first = await push(7);
    await claim(); // the first is RUNNING when the second event arrives
    const second = await push(7);
    const third = await push(7);
    const otherKey = await push(8);
    expect(await run(first)).toMatchObject({
      status: 'CANCELLED',
      concurrency_key: '7',
      error_detail: `superseded by run ${second} (delivery ${(await run(second)).delivery_id}) with concurrency key "7"`,
    });
    expect(await run(second)).toMatchObject({ status: 'CANCELLED', error_detail: expect.stringContaining(`superseded by run ${third}`) });
    expect(await run(third)).toMatchObject({ status: 'PENDING', concurrency_key: '7', held_reason: null });
    expect(await run(otherKey)).toMatchObject({ status: 'PENDING', concurrency_key: '8' });
  });

  it('skip: a new event for a key with a live run ends SKIPPED with the reason', async () => {
    const { push, run } = await setup({ concurrency_key: 'pull_request.number', on_conflict: 'skip' });
    const first = await push(7);
    const second = await push(7);
    expect(await run(first)).toMatchObject({ status: 'PENDING' });
    expect(await run(second)).toMatchObject({
      status: 'SKIPPED',
      completed_at: expect.any(String),
      error_detail: `skipped: run ${first} with concurrency key "7" is still PENDING`,
    });
  });

  it('queue: runs with one key run one at a time, in order; the held one says why', async () => {
    const { platform, push, run, claim } = await setup({ concurrency_key: 'pull_request.number' });
    const first = await push(7);
    const second = await push(7);
    const other = await push(8);
    expect(await run(second)).toMatchObject({ status: 'PENDING', held_reason: `queued: waits for run ${first} with concurrency key "7" to finish` });
    // One claim takes one run per key, the oldest.
    expect((await claim()).map((claimed) => claimed.id).sort()).toEqual([first, other].sort());
    expect(await claim()).toEqual([]);
    await platform.storage.runQueue.complete(
      'w1',
      { orgId: 'acme', id: first },
      { status: 'COMPLETED', error_detail: null, completed_at: new Date().toISOString() },
    );
    const next = await claim();
    expect(next.map((claimed) => claimed.id)).toEqual([second]);
    expect(await run(second)).toMatchObject({ status: 'RUNNING', held_reason: null });
  });

  it('an event whose key is null is not grouped', async () => {
    const { push, run } = await setup({ concurrency_key: 'pull_request.number', on_conflict: 'skip' });
    const first = await push(null);
    const second = await push(null);
    expect((await run(first)).concurrency_key).toBeNull();
    expect(await run(second)).toMatchObject({ status: 'PENDING', concurrency_key: null });
  });

  it('debounce: the last event of a burst wins, and waits out the window', async () => {
    const { push, run, claim, advance, clock } = await setup({ concurrency_key: 'pull_request.number', debounce_seconds: 30 });
    const burst = [await push(7), await push(7), await push(7)];
    const last = burst[2] as string;
    for (const id of burst.slice(0, 2)) {
      expect(await run(id)).toMatchObject({ status: 'CANCELLED', error_detail: expect.stringContaining('within the 30 s debounce window') });
    }
    const startsAt = new Date(clock.now().getTime() + 30_000).toISOString();
    expect(await run(last)).toMatchObject({
      status: 'PENDING',
      held_reason: `debounced: starts at ${startsAt} unless a later event with concurrency key "7" replaces it`,
    });
    expect(await claim()).toEqual([]);
    advance(30_000);
    expect((await claim()).map((claimed) => claimed.id)).toEqual([last]);
  });

  it('debounce without a key debounces every event of the automation', async () => {
    const { push, run } = await setup({ debounce_seconds: 5 });
    const first = await push(1);
    const second = await push(2);
    expect((await run(first)).status).toBe('CANCELLED');
    expect((await run(second)).status).toBe('PENDING');
  });

  it('rate limit: past max_runs per window, runs are SKIPPED with the reason; the window slides', async () => {
    const { push, run, advance } = await setup({ rate_limit: { max_runs: 2, per_seconds: 60 } });
    const runs = [await push(1), await push(2), await push(3)];
    expect((await run(runs[0]!)).status).toBe('PENDING');
    expect((await run(runs[1]!)).status).toBe('PENDING');
    expect(await run(runs[2]!)).toMatchObject({ status: 'SKIPPED', error_detail: 'rate limit: this automation starts at most 2 run(s) per 60 s' });
    advance(60_000);
    expect((await run(await push(4))).status).toBe('PENDING');
  });

  it('refuses bad flow-control settings with 422, and keeps them through a PATCH', async () => {
    const { platform, automation } = await setup({ concurrency_key: 'pull_request.number', on_conflict: 'cancel_previous', debounce_seconds: 10 });
    expect(automation).toMatchObject({ concurrency_key: 'pull_request.number', on_conflict: 'cancel_previous', debounce_seconds: 10, rate_limit: null });
    for (const bad of [{ concurrency_key: 'nope(' }, { on_conflict: 'replace' }, { debounce_seconds: 0 }, { rate_limit: { max_runs: 0, per_seconds: 10 } }]) {
      const error = await platform.automations.update(alice, automation.id, bad).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(bad)).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).code).toBe('VALIDATION_FAILED');
    }
    const patched = await platform.automations.update(alice, automation.id, { name: 'renamed', on_conflict: 'skip' });
    expect(patched).toMatchObject({ concurrency_key: 'pull_request.number', on_conflict: 'skip', debounce_seconds: 10 });
    expect(await platform.automations.update(alice, automation.id, { concurrency_key: null, debounce_seconds: null })).toMatchObject({
      concurrency_key: null,
      debounce_seconds: null,
    });
  });
});
