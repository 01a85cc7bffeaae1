import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PlatformError, StorageConflictError, StorageUnavailableError } from '@agent-platform/core';
import { decodePageCursor } from '@agent-platform/core/adapter-kit';
import type { DeliveryRecord, StorageRepositories } from '@agent-platform/core';
import {
  fixtureTime,
  makeApiKeyRecord,
  makeAutomationRecord,
  makeConversationEvent,
  makeConversationRecord,
  makeDedupClaim,
  makeDeliveryRecord,
  makeGithubLinkRecord,
  makeRunRecord,
  makeSandboxRecord,
  makeSettingsRecord,
  makeWebhookRecord,
  testRunQueue,
  testStorageAdapter,
  uniqueId,
} from '@agent-platform/testing';
import { MIN_STORED_BYTES_LENGTH } from './database/stored-text.js';
import { DEFAULT_MAX_DELIVERIES, DEFAULT_MAX_DELIVERIES_PER_ORG, DRIVER_NAME, createMemoryStorage } from './index.js';

testStorageAdapter('memory', () => createMemoryStorage());

// Memory storage lives in one process: every "process" of the shared backend is the same adapter.
testRunQueue('memory', async () => {
  const storage = createMemoryStorage();
  return { open: async () => storage, close: () => storage.close() };
});

describe('createMemoryStorage', () => {
  it('is named after the driver', () => {
    expect(DRIVER_NAME).toBe('memory');
    expect(createMemoryStorage().name).toBe('memory');
  });

  it('starts with the seed records, copied', async () => {
    const settings = makeSettingsRecord();
    const key = makeApiKeyRecord();
    const webhook = makeWebhookRecord();
    const storage = createMemoryStorage({ seed: { settings: [settings], apiKeys: [key], webhooks: [webhook] } });
    settings.values.language = 'changed';
    expect((await storage.settings.get(settings.user_id))?.values.language).toBe('en');
    expect(await storage.apiKeys.getByHash(key.key_hash)).toEqual(key);
    expect(await storage.webhooks.getBySource(webhook.org_id, webhook.source)).toEqual(webhook);
  });

  it('refuses a seed that breaks a uniqueness rule', () => {
    const key = makeApiKeyRecord();
    expect(() => createMemoryStorage({ seed: { apiKeys: [key, { ...key, id: uniqueId('key') }] } })).toThrow(StorageConflictError);
  });

  it('rejects every call once closed, after letting a running transaction finish', async () => {
    const storage = createMemoryStorage();
    const record = makeApiKeyRecord();
    const running = storage.transaction(async (tx) => {
      await sleep(10);
      await tx.apiKeys.insert(record);
    });
    await storage.close();
    await running;
    await expect(storage.ping()).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.apiKeys.get(record.id)).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.apiKeys.insert(makeApiKeyRecord())).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.transaction(async () => 1)).rejects.toBeInstanceOf(StorageUnavailableError);
  });

  it("refuses a transaction's repositories once it has finished", async () => {
    const storage = createMemoryStorage();
    let escaped: StorageRepositories | undefined;
    await storage.transaction(async (tx) => {
      escaped = tx;
    });
    await expect(escaped?.apiKeys.insert(makeApiKeyRecord())).rejects.toThrow(/finished/);
    await expect(escaped?.settings.get('anyone')).rejects.toThrow(/finished/);
  });

  it('rolls back a callback that throws synchronously, and rethrows non-Error values as they are', async () => {
    const storage = createMemoryStorage();
    const record = makeApiKeyRecord();
    const thrown = { reason: 'not an Error' };
    await expect(
      storage.transaction((tx) => {
        void tx.apiKeys.insert(record);
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    expect(await storage.apiKeys.get(record.id)).toBeNull();
  });

  it('gives a hash back to its committed owner when a rolled-back transaction moved it', async () => {
    const storage = createMemoryStorage();
    const original = makeApiKeyRecord();
    await storage.apiKeys.insert(original);
    const usurper = makeApiKeyRecord({ key_hash: original.key_hash, user_id: original.user_id });
    await expect(
      storage.transaction(async (tx) => {
        await tx.apiKeys.delete(original.id);
        await tx.apiKeys.insert(usurper);
        expect(await tx.apiKeys.getByHash(original.key_hash)).toEqual(usurper);
        expect(await storage.apiKeys.getByHash(original.key_hash)).toEqual(original);
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await storage.apiKeys.getByHash(original.key_hash)).toEqual(original);
    expect(await storage.apiKeys.listByUser(original.user_id)).toEqual([original]);
    await expect(storage.apiKeys.insert({ ...usurper, key_hash: uniqueId('hash') })).resolves.toBeUndefined();
  });

  it('shows readers outside a transaction the committed side of an index it changed', async () => {
    const storage = createMemoryStorage();
    const orgId = uniqueId('org');
    const moved = makeWebhookRecord({ org_id: orgId, source: 'old', created_at: fixtureTime(1) });
    const removed = makeWebhookRecord({ org_id: orgId, source: 'gone', created_at: fixtureTime(2) });
    await storage.webhooks.insert(moved);
    await storage.webhooks.insert(removed);
    await storage.transaction(async (tx) => {
      await tx.webhooks.update({ ...moved, source: 'new' });
      await tx.webhooks.delete(orgId, removed.id);
      await tx.webhooks.insert(makeWebhookRecord({ org_id: orgId, source: 'old' }));
      expect(await storage.webhooks.getBySource(orgId, 'old')).toEqual(moved);
      expect(await storage.webhooks.getBySource(orgId, 'new')).toBeNull();
      expect(await storage.webhooks.getBySource(orgId, 'gone')).toEqual(removed);
      expect(await storage.webhooks.list(orgId, { limit: 10, offset: 0 })).toEqual({
        items: [moved, removed],
        total: 2,
      });
    });
    expect((await storage.webhooks.list(orgId, { limit: 10, offset: 0 })).total).toBe(2);
    expect((await storage.webhooks.getBySource(orgId, 'new'))?.id).toBe(moved.id);
  });

  it('commits and rolls back many transactions on a large store', async () => {
    const apiKeys = Array.from({ length: 20_000 }, () => makeApiKeyRecord());
    const storage = createMemoryStorage({ seed: { apiKeys } });
    for (let n = 0; n < 2_000; n += 1) {
      const key = apiKeys[n % apiKeys.length];
      if (!key) throw new Error('unreachable');
      await storage
        .transaction(async (tx) => {
          await tx.apiKeys.touch(key.id, fixtureTime(n));
          if (n % 2 === 1) throw new Error('rollback');
        })
        .catch(() => undefined);
    }
    expect((await storage.apiKeys.get(apiKeys[0]?.id ?? ''))?.last_used_at).toBe(fixtureTime(0));
    expect((await storage.apiKeys.get(apiKeys[1]?.id ?? ''))?.last_used_at).toBeNull();
  });
  it('starts with seeded automations, runs, deliveries and GitHub links', async () => {
    const automation = makeAutomationRecord();
    const run = makeRunRecord({ org_id: automation.org_id, automation_id: automation.id });
    const delivery = makeDeliveryRecord({ org_id: automation.org_id });
    const link = makeGithubLinkRecord({ org_id: automation.org_id });
    const storage = createMemoryStorage({
      seed: { automations: [automation], runs: [run], deliveries: [delivery], githubLinks: [link] },
    });
    expect(await storage.automations.listEnabledBySource(automation.org_id, 'github')).toEqual([automation]);
    expect(await storage.runs.get(run.org_id, run.id)).toEqual(run);
    expect(await storage.deliveries.get(delivery.org_id, delivery.id)).toEqual(delivery);
    expect(await storage.githubLinks.findOrgs([{ kind: link.kind, key: link.key }])).toEqual([link.org_id]);
    expect(() => createMemoryStorage({ seed: { runs: [run, run] } })).toThrow(StorageConflictError);
  });

  it('refuses a maxDeliveries or maxDeliveriesPerOrg that is not a positive integer or Infinity', () => {
    expect(DEFAULT_MAX_DELIVERIES).toBe(10_000);
    expect(DEFAULT_MAX_DELIVERIES_PER_ORG).toBe(1_000);
    for (const option of ['maxDeliveries', 'maxDeliveriesPerOrg'] as const) {
      for (const max of [0, -1, 1.5, Number.NaN, -Infinity]) {
        expect(() => createMemoryStorage({ [option]: max })).toThrow(new RangeError(`${option} must be a positive integer or Infinity, got ${max}`));
      }
      expect(() => createMemoryStorage({ [option]: Infinity })).not.toThrow();
      expect(() => createMemoryStorage({ [option]: 1 })).not.toThrow();
    }
  });

  it("evicts an org's oldest deliveries beyond maxDeliveriesPerOrg, leaving other orgs and dedup claims alone", async () => {
    const storage = createMemoryStorage({ maxDeliveriesPerOrg: 3 });
    const orgId = uniqueId('org');
    const records = [1, 2, 3, 4, 5].map((n) => makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(n) }));
    const neighbour = makeDeliveryRecord({ received_at: fixtureTime(0) });
    await storage.deliveries.insert(neighbour);
    for (const record of records) {
      expect(await storage.deliveries.claimDedupKey(makeDedupClaim(record))).toBeNull();
      await storage.deliveries.insert(record);
    }
    const [first, second, ...kept] = records;
    expect(await storage.deliveries.list(orgId, { limit: 10, offset: 0 })).toEqual({
      items: [...kept].reverse(),
      total: 3,
    });
    expect(await storage.deliveries.get(orgId, first?.id ?? '')).toBeNull();
    expect(await storage.deliveries.get(orgId, second?.id ?? '')).toBeNull();
    expect(await storage.deliveries.get(neighbour.org_id, neighbour.id)).toEqual(neighbour);
    // The evicted delivery's claim still holds its key until it expires.
    if (!first) throw new Error('unreachable');
    const redelivery = makeDedupClaim(first, { deliveryId: uniqueId('dlv'), now: fixtureTime(10) });
    expect(await storage.deliveries.claimDedupKey(redelivery)).toBe(first.id);
    // An evicted id is free again.
    await storage.deliveries.insert({ ...first, received_at: fixtureTime(9) });
    expect((await storage.deliveries.list(orgId, { limit: 10, offset: 0 })).items[0]?.id).toBe(first.id);
  });

  it('evicts an inserted delivery that is older than every one it would keep', async () => {
    const storage = createMemoryStorage({ maxDeliveriesPerOrg: 2 });
    const orgId = uniqueId('org');
    const kept = [5, 6].map((n) => makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(n) }));
    for (const record of kept) await storage.deliveries.insert(record);
    const late = makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(1) });
    await storage.deliveries.insert(late);
    expect(await storage.deliveries.get(orgId, late.id)).toBeNull();
    expect((await storage.deliveries.list(orgId, { limit: 10, offset: 0 })).items).toEqual([...kept].reverse());
  });

  it('restores evicted deliveries when the transaction rolls back, and shows readers the committed ones meanwhile', async () => {
    const storage = createMemoryStorage({ maxDeliveriesPerOrg: 3 });
    const orgId = uniqueId('org');
    const committed = [1, 2, 3].map((n) => makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(n) }));
    for (const record of committed) await storage.deliveries.insert(record);
    const newestFirst = [...committed].reverse();
    const error = new Error('rollback');
    await expect(
      storage.transaction(async (tx) => {
        await tx.deliveries.insert(makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(4) }));
        await tx.deliveries.insert(makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(2) }));
        expect((await tx.deliveries.list(orgId, { limit: 10, offset: 0 })).total).toBe(3);
        expect(await tx.deliveries.get(orgId, committed[0]?.id ?? '')).toBeNull();
        expect(await storage.deliveries.list(orgId, { limit: 10, offset: 0 })).toEqual({ items: newestFirst, total: 3 });
        expect(await storage.deliveries.list(orgId, { limit: 2, offset: 1 })).toEqual({
          items: newestFirst.slice(1),
          total: 3,
        });
        expect(await storage.deliveries.list(orgId, { limit: 10, offset: 0, status: 'matched' })).toEqual({
          items: newestFirst,
          total: 3,
        });
        throw error;
      }),
    ).rejects.toBe(error);
    expect(await storage.deliveries.list(orgId, { limit: 10, offset: 0 })).toEqual({ items: newestFirst, total: 3 });
  });

  it('keeps the default bounds: 1,000 deliveries per org, 10,000 in all', async () => {
    const storage = createMemoryStorage();
    const write = (orgId: string, n: number) =>
      storage.deliveries.insert(makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(n), payload_json: null }));
    const busy = uniqueId('org');
    for (let n = 0; n < 1_001; n += 1) await write(busy, n);
    expect((await storage.deliveries.list(busy, { limit: 1, offset: 0 })).total).toBe(1_000);
    const others = Array.from({ length: 10 }, () => uniqueId('org'));
    for (let n = 0; n < 9_500; n += 1) await write(others[n % others.length] ?? '', 2_000 + n);
    // 1,000 + 9,500 is 500 over the total: the oldest 500, all the busy org's, were evicted.
    expect((await storage.deliveries.list(busy, { limit: 1, offset: 0 })).total).toBe(500);
    for (const orgId of others) expect((await storage.deliveries.list(orgId, { limit: 1, offset: 0 })).total).toBe(950);
  });

  it('evicts the oldest deliveries across orgs beyond maxDeliveries (by received_at, then id), leaving dedup claims alone', async () => {
    const storage = createMemoryStorage({ maxDeliveries: 3, maxDeliveriesPerOrg: Infinity });
    const [a, b, c] = [uniqueId('org'), uniqueId('org'), uniqueId('org')];
    const first = makeDeliveryRecord({ org_id: a, received_at: fixtureTime(1) });
    const second = makeDeliveryRecord({ org_id: b, received_at: fixtureTime(2) });
    const third = makeDeliveryRecord({ org_id: a, received_at: fixtureTime(3) });
    for (const record of [first, second, third]) {
      expect(await storage.deliveries.claimDedupKey(makeDedupClaim(record))).toBeNull();
      await storage.deliveries.insert(record);
    }
    // A fourth, in another org, evicts org a's first delivery: the oldest of the store.
    const fourth = makeDeliveryRecord({ org_id: c, received_at: fixtureTime(4) });
    await storage.deliveries.insert(fourth);
    expect(await storage.deliveries.get(a, first.id)).toBeNull();
    expect(await storage.deliveries.list(a, { limit: 10, offset: 0 })).toEqual({ items: [third], total: 1 });
    expect(await storage.deliveries.get(b, second.id)).toEqual(second);
    expect(await storage.deliveries.get(c, fourth.id)).toEqual(fourth);
    // Its dedup claim still holds the key until it expires.
    expect(await storage.deliveries.claimDedupKey(makeDedupClaim(first, { deliveryId: uniqueId('dlv'), now: fixtureTime(10) }))).toBe(first.id);
    // Through recordDelivery too; at the same instant the lower id goes first.
    const tied = ['dlv_tie_b', 'dlv_tie_a'].map((id) => makeDeliveryRecord({ id, org_id: b, received_at: fixtureTime(5) }));
    for (const delivery of tied) {
      expect(await storage.deliveries.recordDelivery({ delivery, runs: [], claim: null })).toEqual({ duplicateOf: null });
    }
    // They evicted org b's second and org a's third: the store holds the fourth and the tied two.
    expect(await storage.deliveries.get(b, second.id)).toBeNull();
    expect(await storage.deliveries.get(a, third.id)).toBeNull();
    const later = [6, 7].map((n) => makeDeliveryRecord({ org_id: c, received_at: fixtureTime(n) }));
    for (const record of later) await storage.deliveries.insert(record);
    expect((await storage.deliveries.list(b, { limit: 10, offset: 0 })).items.map((row) => row.id)).toEqual(['dlv_tie_b']);
    expect((await storage.deliveries.list(c, { limit: 10, offset: 0 })).items).toEqual([...later].reverse());
    // An inserted delivery older than all the others is evicted at once.
    const stale = makeDeliveryRecord({ org_id: a, received_at: fixtureTime(0) });
    await storage.deliveries.insert(stale);
    expect(await storage.deliveries.get(a, stale.id)).toBeNull();
  });

  it('applies both bounds together, and to seed records', async () => {
    const [a, b] = [uniqueId('org'), uniqueId('org')];
    const seeded = [1, 2, 3].map((n) => makeDeliveryRecord({ org_id: a, received_at: fixtureTime(n) }));
    const storage = createMemoryStorage({ maxDeliveries: 4, maxDeliveriesPerOrg: 2, seed: { deliveries: seeded } });
    const ids = async (orgId: string) => (await storage.deliveries.list(orgId, { limit: 10, offset: 0 })).items.map((row) => row.id);
    // The per-org bound kept org a's two newest.
    expect(await ids(a)).toEqual([seeded[2]?.id, seeded[1]?.id]);
    const fromB = [4, 5, 6].map((n) => makeDeliveryRecord({ org_id: b, received_at: fixtureTime(n) }));
    for (const record of fromB) await storage.deliveries.insert(record);
    // Org b's third went past its own bound (its first evicted), never past the total.
    expect(await ids(b)).toEqual([fromB[2]?.id, fromB[1]?.id]);
    expect(await ids(a)).toEqual([seeded[2]?.id, seeded[1]?.id]);
    // A fifth delivery in all, in a third org, evicts the oldest of the store: org a's.
    const c = makeDeliveryRecord({ received_at: fixtureTime(7) });
    await storage.deliveries.insert(c);
    expect(await ids(a)).toEqual([seeded[2]?.id]);
    expect(await ids(b)).toEqual([fromB[2]?.id, fromB[1]?.id]);
    expect(await ids(c.org_id)).toEqual([c.id]);
  });

  it('restores deliveries evicted by the total bound when the transaction rolls back', async () => {
    const storage = createMemoryStorage({ maxDeliveries: 2 });
    const committed = [1, 2].map((n) => makeDeliveryRecord({ received_at: fixtureTime(n), payload_json: longPayload(n) }));
    for (const record of committed) await storage.deliveries.insert(record);
    const read = () => Promise.all(committed.map((record) => storage.deliveries.get(record.org_id, record.id)));
    const error = new Error('rollback');
    await expect(
      storage.transaction(async (tx) => {
        for (const n of [3, 4]) {
          const delivery = makeDeliveryRecord({ received_at: fixtureTime(n), payload_json: longPayload(n) });
          await tx.deliveries.recordDelivery({ delivery, runs: [], claim: makeDedupClaim(delivery) });
        }
        expect(await Promise.all(committed.map((record) => tx.deliveries.get(record.org_id, record.id)))).toEqual([null, null]);
        // Readers outside the transaction still see the committed deliveries.
        expect(await read()).toEqual(committed);
        throw error;
      }),
    ).rejects.toBe(error);
    expect(await read()).toEqual(committed);
    // Their payloads are intact once later deliveries take the room again (and evict them).
    const after = [5, 6].map((n) => makeDeliveryRecord({ received_at: fixtureTime(n), payload_json: longPayload(n + 100) }));
    await storage.deliveries.insert(after[0] as DeliveryRecord);
    expect(await storage.deliveries.get(committed[1]?.org_id ?? '', committed[1]?.id ?? '')).toEqual(committed[1]);
    await storage.deliveries.insert(after[1] as DeliveryRecord);
    expect(await Promise.all(after.map((record) => storage.deliveries.get(record.org_id, record.id)))).toEqual(after);
  });

  it('reads back long payloads exactly, hostile ones included, while evictions reuse their room', async () => {
    const storage = createMemoryStorage({ maxDeliveries: 3 });
    const pad = (text: string) => text + 'x'.repeat(MIN_STORED_BYTES_LENGTH);
    const payloads = [
      longPayload(1),
      pad('\u0000'),
      pad('nul \u0000 inside, BOM \ufeff, é ü 中文 🎉 \u2028'),
      pad('\ufeff at the start'),
      pad('lone high \ud800 surrogate'),
      pad('lone low \udfff surrogate'),
      pad('reversed pair \ude00\ud83d'),
      pad('pair at the end \ud83d\ude00'),
      `${pad('')}\ud800`,
      longPayload(2).replace('a', '\u0000'),
      '',
      'short \ud800',
    ];
    const stored: DeliveryRecord[] = [];
    for (const [n, payload] of payloads.entries()) {
      const record = makeDeliveryRecord({ received_at: fixtureTime(n), payload_json: payload });
      await storage.deliveries.insert(record);
      stored.push(record);
      for (const kept of stored.slice(-3)) {
        const got = await storage.deliveries.get(kept.org_id, kept.id);
        expect(got?.payload_json === kept.payload_json).toBe(true);
        expect(got).toEqual(kept);
        expect((await storage.deliveries.list(kept.org_id, { limit: 1, offset: 0 })).items).toEqual([kept]);
        expect((await storage.deliveries.list(kept.org_id, { limit: 1, offset: 0, status: kept.status })).items).toEqual([kept]);
      }
    }
  });

  it("prunes claims that expired by a later claim's now", async () => {
    const storage = createMemoryStorage();
    const expired = makeDeliveryRecord();
    const live = makeDeliveryRecord({ org_id: expired.org_id });
    expect(await storage.deliveries.claimDedupKey(makeDedupClaim(expired, { expiresAt: fixtureTime(10) }))).toBeNull();
    expect(await storage.deliveries.claimDedupKey(makeDedupClaim(live, { expiresAt: fixtureTime(100) }))).toBeNull();
    // A claim at 50s drops the claim that lapsed at 10s but keeps the one live until 100s ...
    const other = makeDeliveryRecord({ org_id: expired.org_id });
    expect(await storage.deliveries.claimDedupKey(makeDedupClaim(other, { now: fixtureTime(50) }))).toBeNull();
    // ... which a caller whose clock lags behind can then see: the lapsed claim is gone for good.
    const lagging = { deliveryId: uniqueId('dlv'), now: fixtureTime(5) };
    expect(await storage.deliveries.claimDedupKey(makeDedupClaim(expired, lagging))).toBeNull();
    expect(await storage.deliveries.claimDedupKey(makeDedupClaim(live, lagging))).toBe(live.id);
  });

  it('keeps only a bounded backlog of expired claims as claims go on', async () => {
    const storage = createMemoryStorage();
    const orgId = uniqueId('org');
    // Each claim lapses after 1s; every later claim drops lapsed ones, so a lagging clock
    // (now = 0) finds none of the old keys claimed, except the last few not yet pruned.
    const count = 200;
    for (let n = 0; n < count; n += 1) {
      const claim = { orgId, source: 'github', key: `k${n}`, deliveryId: `d${n}`, now: fixtureTime(n), expiresAt: fixtureTime(n + 1) };
      expect(await storage.deliveries.claimDedupKey(claim)).toBeNull();
    }
    let stillHeld = 0;
    for (let n = 0; n < count - 2; n += 1) {
      const claim = { orgId, source: 'github', key: `k${n}`, deliveryId: 'late', now: fixtureTime(0), expiresAt: fixtureTime(1) };
      if ((await storage.deliveries.claimDedupKey(claim)) !== null) stillHeld += 1;
    }
    expect(stillHeld).toBe(0);
  });

  it('a runs.insertMany conflict caught inside a transaction leaves none of its runs behind', async () => {
    const storage = createMemoryStorage();
    const existing = makeRunRecord();
    await storage.runs.insertMany([existing]);
    const fresh = makeRunRecord({ org_id: existing.org_id });
    const kept = makeRunRecord({ org_id: existing.org_id });
    await storage.transaction(async (tx) => {
      await expect(tx.runs.insertMany([fresh, { ...existing, status: 'RUNNING' }])).rejects.toBeInstanceOf(StorageConflictError);
      expect(await tx.runs.get(existing.org_id, fresh.id)).toBeNull();
      await tx.runs.insertMany([kept]);
    });
    expect(await storage.runs.get(existing.org_id, fresh.id)).toBeNull();
    expect(await storage.runs.get(existing.org_id, existing.id)).toEqual(existing);
    expect(await storage.runs.get(existing.org_id, kept.id)).toEqual(kept);
  });

  it('shows readers outside a transaction the committed order of a list it reordered', async () => {
    const storage = createMemoryStorage();
    const orgId = uniqueId('org');
    const records = [1, 2, 3, 4].map((n) => makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(n) }));
    for (const record of records) await storage.automations.insert(record);
    const [a, b, c, d] = records;
    if (!a || !b || !c || !d) throw new Error('unreachable');
    await storage.transaction(async (tx) => {
      await tx.automations.update({ ...a, created_at: fixtureTime(10) });
      await tx.automations.update({ ...d, created_at: fixtureTime(0) });
      await tx.automations.delete(orgId, b.id);
      expect((await tx.automations.list(orgId, { limit: 10, offset: 0 })).items.map((row) => row.id)).toEqual([a.id, c.id, d.id]);
      expect(await storage.automations.list(orgId, { limit: 10, offset: 0 })).toEqual({ items: [d, c, b, a], total: 4 });
      for (let offset = 0; offset < 4; offset += 1) {
        expect(await storage.automations.list(orgId, { limit: 2, offset })).toEqual({
          items: [d, c, b, a].slice(offset, offset + 2),
          total: 4,
        });
      }
    });
    expect((await storage.automations.list(orgId, { limit: 10, offset: 0 })).total).toBe(3);
  });

  it('keeps cursor pages exact when sandboxes are inserted or deleted between pages', async () => {
    const storage = createMemoryStorage();
    const userId = uniqueId('user');
    const records = [1, 2, 3, 4, 5, 6].map((n) => makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(n) }));
    for (const record of records) await storage.sandboxes.insert(record);
    const newestFirst = [...records].reverse();
    const first = await storage.sandboxes.listByUser(userId, { limit: 2 });
    expect(first.items).toEqual(newestFirst.slice(0, 2));
    // Core's page id: the last item's created_at as stored, and its id.
    expect(decodePageCursor(first.nextPageId ?? '')).toEqual({ createdAt: newestFirst[1]?.created_at, id: newestFirst[1]?.id });
    // A newer sandbox, and the deletion of the very record the page id points at, move nothing.
    await storage.sandboxes.insert(makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(9) }));
    await storage.sandboxes.delete(newestFirst[1]?.id ?? '');
    const second = await storage.sandboxes.listByUser(userId, { limit: 2, pageId: first.nextPageId ?? '' });
    expect(second.items).toEqual(newestFirst.slice(2, 4));
    // An older one inserted behind the cursor shows up on a later page.
    const oldest = makeSandboxRecord({ created_by_user_id: userId, created_at: fixtureTime(0) });
    await storage.sandboxes.insert(oldest);
    const third = await storage.sandboxes.listByUser(userId, { limit: 5, pageId: second.nextPageId ?? '' });
    expect(third).toEqual({ items: [...newestFirst.slice(4), oldest], nextPageId: null });
  });

  it('rejects a cursor-page limit that is not a positive integer with a VALIDATION_FAILED PlatformError', async () => {
    const storage = createMemoryStorage();
    const conversation = makeConversationRecord();
    await storage.conversations.insert(conversation);
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      await expect(storage.sandboxes.listByUser(uniqueId('user'), { limit })).rejects.toBeInstanceOf(PlatformError);
      await expect(storage.conversations.listEvents(conversation.id, { limit })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
    }
  });

  it('stores each event under the conversation it was appended to', async () => {
    const storage = createMemoryStorage();
    const conversation = makeConversationRecord();
    await storage.conversations.insert(conversation);
    const stray = makeConversationEvent({ conversation_id: uniqueId('conv') });
    const [stored] = await storage.conversations.appendEvents(conversation.id, [stray]);
    expect(stored).toEqual({ ...stray, conversation_id: conversation.id, seq: 0 });
    expect(await storage.conversations.listEvents(stray.conversation_id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
  });

  it('answers a listEvents page id past the last event with an empty last page', async () => {
    const storage = createMemoryStorage();
    const conversation = makeConversationRecord();
    await storage.conversations.insert(conversation);
    await storage.conversations.appendEvents(conversation.id, [makeConversationEvent({ conversation_id: conversation.id })]);
    expect(await storage.conversations.listEvents(conversation.id, { limit: 10, pageId: '5' })).toEqual({
      items: [],
      nextPageId: null,
    });
  });

  it("counts an org's RUNNING runs right after a rolled-back transaction moved runs in and out of RUNNING", async () => {
    const storage = createMemoryStorage();
    const orgId = uniqueId('org');
    const running = makeRunRecord({ org_id: orgId, status: 'RUNNING', attempt: 1, lease_owner: 'wkr-a', lease_expires_at: fixtureTime(5000) });
    const pending = makeRunRecord({ org_id: orgId, created_at: fixtureTime(1) });
    await storage.runs.insertMany([running, pending]);
    await expect(
      storage.transaction(async (tx) => {
        await tx.runs.transition(orgId, running.id, { from: ['RUNNING'] }, { status: 'COMPLETED', completed_at: fixtureTime(2) });
        await tx.runs.transition(orgId, pending.id, { from: ['PENDING'] }, { status: 'RUNNING' });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    const request = { owner: 'wkr-b', max: 5, leaseMs: 1_000, now: new Date(fixtureTime(1000)) };
    expect(await storage.runQueue.claim({ ...request, limits: { perOrg: 1, global: Infinity } })).toEqual([]);
    expect(await storage.runQueue.claim({ ...request, limits: { perOrg: Infinity, global: 1 } })).toEqual([]);
    expect((await storage.runQueue.claim({ ...request, limits: { perOrg: 2, global: 2 } })).map((run) => run.id)).toEqual([pending.id]);
  });

  it('runs a claim after the transaction running when it was asked for, so it sees what that committed', async () => {
    const storage = createMemoryStorage();
    const run = makeRunRecord();
    const transaction = storage.transaction(async (tx) => {
      await sleep(10);
      await tx.runs.insertMany([run]);
    });
    const claimed = storage.runQueue.claim({
      owner: 'wkr-a',
      max: 1,
      leaseMs: 1_000,
      now: new Date(fixtureTime(1000)),
      limits: { perOrg: Infinity, global: Infinity },
    });
    await transaction;
    expect((await claimed).map((row) => row.id)).toEqual([run.id]);
  });

  it('gives each store a change feed of its own', async () => {
    const [a, b] = [createMemoryStorage(), createMemoryStorage()];
    const heardByA: string[] = [];
    const heardByB: string[] = [];
    await a.changes.subscribe((change) => heardByA.push(change.type));
    await b.changes.subscribe((change) => heardByB.push(change.type));
    await a.changes.publish({ type: 'runs.pending' });
    await sleep(10);
    expect(heardByA).toEqual(['runs.pending']);
    expect(heardByB).toEqual([]);
  });
});

/** A JSON payload of about 21 KB (a GitHub pull request event's size), different for each `n`. */
function longPayload(n: number): string {
  return JSON.stringify({ n, body: 'a'.repeat(21_000 + (n % 7)), note: `payload ${n}` });
}
