import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, PlatformError, signatureHeaders } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';

const alice = { userId: 'alice', orgId: 'acme' };

async function setup() {
  // A clock a second further on at each delivery, so "newest first" is not decided by random ids.
  let at = Date.parse('2026-11-23T12:00:00Z');
  const clock = { now: () => new Date(at) };
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    clock,
  });
  const webhook = await platform.webhooks.register(alice, { name: 'Linear', source: 'linear' });
  const send = async (payload: unknown, deliveryId: string) => {
    at += 1000;
    const body = Buffer.from(JSON.stringify(payload));
    const headers = {
      ...signatureHeaders({ scheme: 'hmac-sha256', secret: webhook.webhook_secret as string, body, now: clock.now() }),
      'linear-delivery': deliveryId,
    };
    return platform.events.ingest('acme', 'linear', { headers, body });
  };
  return { platform, send };
}

const draft = (filter: string | null, on: string | string[] = 'Issue') => ({
  name: 'triage',
  instructions: 'Triage it',
  trigger: { type: 'event', source: 'linear', on, filter },
});

describe('automations.validate', () => {
  it('refuses an invalid draft as create does, with the same issues under `automation`', async () => {
    const { platform } = await setup();
    const error = await platform.automations.validate(alice, { automation: { ...draft('nope('), name: '' } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).issues?.map((issue) => issue.loc)).toEqual([
      ['body', 'automation', 'name'],
      ['body', 'automation', 'trigger', 'filter'],
    ]);
    const create = await platform.automations.create(alice, { ...draft('nope('), name: '' }).catch((caught: unknown) => caught);
    expect((create as PlatformError).issues?.map((issue) => issue.msg)).toEqual((error as PlatformError).issues?.map((issue) => issue.msg));
    // A regex that does not compile is refused at validation too.
    const regex = await platform.automations.validate(alice, { automation: draft("regex(data.title, '(')") }).catch((caught: unknown) => caught);
    expect((regex as PlatformError).issues?.[0]).toMatchObject({
      loc: ['body', 'automation', 'trigger', 'filter'],
      msg: expect.stringContaining('invalid regex pattern'),
    });
  });

  it('answers a valid draft with its trigger as stored, and no results without payloads', async () => {
    const { platform } = await setup();
    expect(await platform.automations.validate(alice, { automation: draft(null) })).toEqual({
      valid: true,
      trigger: { type: 'event', source: 'linear', on: 'Issue', filter: null },
      enabled: true,
      results: [],
    });
  });

  it('evaluates a sample payload, taking the event key as the source would', async () => {
    const { platform } = await setup();
    const payload = { type: 'Issue', action: 'create', data: { title: 'Crash on start', labels: [{ name: 'Bug' }] } };
    const verdict = async (filter: string | null, sample: unknown = payload, on: string | string[] = 'Issue') =>
      (await platform.automations.validate(alice, { automation: draft(filter, on), sample_payload: sample })).results;
    expect(await verdict("icontains(data.labels[].name, 'bug')")).toEqual([
      { payload: 'sample', delivery_id: null, received_at: null, event_key: 'Issue', matched: true, reason: 'matched', detail: null },
    ]);
    expect((await verdict("action == 'update'"))[0]).toMatchObject({ matched: false, reason: 'filter_false' });
    expect((await verdict(null, payload, 'Comment'))[0]).toMatchObject({ event_key: 'Issue', matched: false, reason: 'event_pattern' });
    expect((await verdict("icontains(missing, 'x')"))[0]).toMatchObject({ matched: false, reason: 'filter_error', detail: expect.any(String) });
    expect((await verdict(null, { data: {} }))[0]).toMatchObject({ matched: false, reason: 'no_event_key', detail: expect.stringContaining('event_key_expr') });
  });

  it('takes sample_event_key when given, requires it for GitHub, and says when the source is unknown', async () => {
    const { platform } = await setup();
    const github = {
      name: 'pr',
      instructions: 'x',
      trigger: { type: 'event', source: 'github', on: 'pull_request.opened', filter: 'pull_request.draft == `false`' },
    };
    const sample = { action: 'opened', pull_request: { draft: false } };
    const missing = await platform.automations.validate(alice, { automation: github, sample_payload: sample }).catch((caught: unknown) => caught);
    expect((missing as PlatformError).issues?.[0]).toMatchObject({ loc: ['body', 'sample_event_key'] });
    const answer = await platform.automations.validate(alice, { automation: github, sample_payload: sample, sample_event_key: 'pull_request.opened' });
    expect(answer.results[0]).toMatchObject({ event_key: 'pull_request.opened', matched: true, reason: 'matched' });
    const unknown = await platform.automations.validate(alice, {
      automation: { ...draft(null), trigger: { type: 'event', source: 'jira', on: 'x' } },
      sample_payload: { type: 'x' },
    });
    expect(unknown.results[0]).toMatchObject({ reason: 'no_event_key', detail: expect.stringContaining('no webhook is registered for source "jira"') });
  });

  it('evaluates the source’s recent deliveries, newest first, skipping duplicates', async () => {
    const { platform, send } = await setup();
    const first = await send({ type: 'Issue', action: 'create', data: { title: 'one' } }, 'd1');
    await send({ type: 'Issue', action: 'create', data: { title: 'one' } }, 'd1'); // a duplicate: no payload kept
    const second = await send({ type: 'Comment', action: 'create', data: { body: 'two' } }, 'd2');
    const third = await send({ type: 'Issue', action: 'update', data: { title: 'three' } }, 'd3');
    const answer = await platform.automations.validate(alice, { automation: draft("action == 'create'"), test_recent: 10 });
    expect(answer.results.map((result) => [result.delivery_id, result.event_key, result.reason])).toEqual([
      [third.delivery_id, 'Issue', 'filter_false'],
      [second.delivery_id, 'Comment', 'event_pattern'],
      [first.delivery_id, 'Issue', 'matched'],
    ]);
    expect(answer.results.every((result) => result.payload === 'delivery' && typeof result.received_at === 'string')).toBe(true);
    const two = await platform.automations.validate(alice, { automation: draft(null), test_recent: 2, sample_payload: { type: 'Issue' } });
    expect(two.results.map((result) => result.payload)).toEqual(['sample', 'delivery', 'delivery']);
    // Nothing was stored: no automation, and the deliveries are as they were.
    expect((await platform.automations.list(alice, { limit: 10, offset: 0 })).total).toBe(0);
  });

  it('keeps test_recent within 1..50', async () => {
    const { platform } = await setup();
    for (const test_recent of [0, 51, 1.5]) {
      await expect(platform.automations.validate(alice, { automation: draft(null), test_recent })).rejects.toMatchObject({ status: 422 });
    }
  });
});
