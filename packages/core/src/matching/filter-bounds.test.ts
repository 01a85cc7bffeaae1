import { describe, expect, it } from 'vitest';
import {
  PlatformError,
  SourceIndex,
  automationCreateInputSchema,
  createAesGcmSecretBox,
  createAgentPlatform,
  generateSecretKey,
  matchEvent,
  parseInput,
  signatureHeaders,
  type AutomationRecord,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { makeAutomationRecord } from '@agent-platform/testing/fixtures';

/**
 * Filter bounds: every filter evaluation is bounded in time and memory; past the bound it is a
 * filter error (fail closed, recorded), and it never blocks other requests.
 */
const chain = (count: number, link: string) => Array.from({ length: count }, () => link).join('|');
/** The attacker's filter (written without spaces): doubles its value 25 times. */
const DOUBLING_25 = `length(@|${chain(25, '[@,@]')}|[])`;
/** Grows 512-fold: within what the save-time check lets through, so only the budget stops it. */
const EIGHT_WAY_3 = `length(to_string(@|[@,@,@,@,@,@,@,@]|[@,@,@,@,@,@,@,@]|[@,@,@,@,@,@,@,@])) > \`0\``;
/** Doubles the payload's array 10 times and then projects over it: ~250 million visits unbounded. */
const DOUBLING_10_PROJECTED = `length(items|${chain(10, '[@,@][]')}|[?x > \`1\`]) > \`0\``;

const alice = { userId: 'alice', orgId: 'acme' };
const largePayload = () => ({
  action: 'opened',
  body: 'The login page crashes when the password has a quote. '.repeat(20_000),
  items: Array.from({ length: 20_000 }, (_, i) => ({ x: i % 3, name: `item ${i}` })),
});

let counter = 0;
function automation(filter: string): AutomationRecord {
  counter += 1;
  return makeAutomationRecord({
    id: `auto_${String(counter).padStart(4, '0')}`,
    org_id: 'acme',
    enabled: true,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(),
    trigger: { type: 'event', source: 'github', on: 'issues.opened', filter },
  });
}

describe('filter bounds', () => {
  it('refuses the 25-fold doubling filter when it is saved (422 on trigger.filter, saying why)', () => {
    expect(DOUBLING_25.length).toBeLessThan(220);
    let error: unknown;
    try {
      parseInput(automationCreateInputSchema, {
        name: 'x',
        trigger: { type: 'event', source: 'github', on: 'issues.opened', filter: DOUBLING_25 },
        instructions: 'go',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).status).toBe(422);
    expect((error as PlatformError).issues).toEqual([
      expect.objectContaining({ loc: ['body', 'trigger', 'filter'], type: 'jmespath_error', msg: expect.stringMatching(/grow exponentially/) }),
    ]);
  });

  it('caps the time all of one event’s filters take: past it the rest fail closed without being evaluated', () => {
    const hostile = Array.from({ length: 40 }, () => automation(DOUBLING_10_PROJECTED));
    const plain = automation(null as unknown as string);
    const { outcomes, matched } = matchEvent(new SourceIndex([...hostile, plain]), 'issues.opened', largePayload());
    expect(outcomes.slice(0, 40).every((result) => result.reason === 'filter_error')).toBe(true);
    const skipped = outcomes.filter((result) => /^filter not evaluated: this event's filters already took more than 250 ms$/.test(result.error ?? ''));
    expect(skipped.length).toBeGreaterThan(0);
    expect(outcomes[0]?.error).toMatch(/evaluation budget/);
    // An automation without a filter costs nothing and still matches.
    expect(matched.map((a) => a.record.id)).toEqual([plain.id]);
  });

  it.each([
    ['a 512-fold multi-select serialised', EIGHT_WAY_3],
    ['a 1024-fold flattened doubling, projected', DOUBLING_10_PROJECTED],
  ])('fails closed on %s, recording a filter error, while another automation of the event matches', (_, hostile) => {
    const bad = automation(hostile);
    const good = automation("action == 'opened' && icontains(body, 'crashes')");
    const { matched, outcomes } = matchEvent(new SourceIndex([bad, good]), 'issues.opened', largePayload());
    expect(matched.map((a) => a.record.id)).toEqual([good.id]);
    expect(outcomes[0]).toMatchObject({ automation_id: bad.id, matched: false, reason: 'filter_error' });
    expect(outcomes[0]?.error).toMatch(/^filter exceeded its evaluation budget \(more than /);
    expect(outcomes[1]).toMatchObject({ automation_id: good.id, matched: true, reason: 'matched' });
  });

  it('records a doubling filter saved before the check existed as a filter error', () => {
    const stored = automation(DOUBLING_25);
    const { matched, outcomes } = matchEvent(new SourceIndex([stored]), 'issues.opened', { action: 'opened' });
    expect(matched).toEqual([]);
    expect(outcomes[0]).toMatchObject({ reason: 'filter_error', error: expect.stringMatching(/grow exponentially/) });
  });

  it('through the platform: refuses the filter at save, and records a bounded one on the delivery', async () => {
    const storage = createMemoryStorage();
    const platform = createAgentPlatform({
      storage,
      secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
      publicUrl: 'http://localhost',
    });
    const secret = 'filter-bounds-secret-0123456789';
    await platform.webhooks.register(alice, { name: 'ci', source: 'ci', webhook_secret: secret });
    const create = (filter: string) =>
      platform.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'build', filter }, instructions: 'go' });
    await expect(create(DOUBLING_25)).rejects.toMatchObject({ status: 422 });
    const hostile = await create(DOUBLING_10_PROJECTED);
    const fine = await create("contains(items[?x == `2`].name, 'item 5')");

    const body = Buffer.from(JSON.stringify({ type: 'build', ...largePayload() }));
    const result = await platform.events.ingest('acme', 'ci', {
      headers: { ...signatureHeaders({ scheme: 'hmac-sha256', secret, body, now: new Date() }), 'webhook-id': 'msg_1' },
      body,
    });
    expect(result).toMatchObject({ matched: 1 });
    const delivery = await storage.deliveries.get('acme', (result as { delivery_id: string }).delivery_id);
    // Both automations were created in the same millisecond, so their order is their random ids'.
    expect(delivery?.outcomes).toHaveLength(2);
    expect(delivery?.outcomes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ automation_id: hostile.id, reason: 'filter_error', error: expect.stringMatching(/evaluation budget/) }),
        expect.objectContaining({ automation_id: fine.id, reason: 'matched' }),
      ]),
    );
    await platform.stop();
  });
});
