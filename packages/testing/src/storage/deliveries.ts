/**
 * Conformance: `deliveries` repository and its dedup claims. Lookups are scoped by org; a dedup
 * key is claimed by exactly one delivery at a time, even when redeliveries race each other.
 * @module
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { DedupClaim, DeliveryRecord, RunRecord } from '@agent-platform/core';
import { fixtureTime, makeDedupClaim, makeDeliveryRecord, makeRunRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

/** A claim of the delivery's dedup key, live for an hour from `fixtureTime(0)`. */

/** How ingest records a redelivery: no payload, outcomes or runs. */
function duplicateOf(delivery: DeliveryRecord, holder: string): DeliveryRecord {
  return {
    ...delivery,
    status: 'duplicate',
    detail: `duplicate of ${holder}`,
    outcomes: [],
    runs_created: [],
    payload_json: null,
  };
}

export function describeDeliveries(ctx: SuiteContext): void {
  describe('deliveries', () => {
    it('get returns null for an unknown delivery, and an org without deliveries lists none', async () => {
      const orgId = uniqueId('org');
      expect(await ctx.adapter.deliveries.get(orgId, uniqueId('dlv'))).toBeNull();
      expect(await ctx.adapter.deliveries.list(orgId, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
    });

    it('insert then get returns the record', async () => {
      const matched = makeDeliveryRecord();
      const ignored = makeDeliveryRecord({
        org_id: matched.org_id,
        source: 'stripe',
        provider_delivery_id: null,
        event_key: null,
        status: 'ignored',
        detail: 'no event key',
        outcomes: [],
        runs_created: [],
        replay_of: uniqueId('dlv'),
        payload_json: '"just a string"',
        dedup_key: `sha256:${'ab'.repeat(32)}`,
      });
      const filterError = makeDeliveryRecord({
        org_id: matched.org_id,
        status: 'unmatched',
        outcomes: [
          {
            automation_id: uniqueId('auto'),
            automation_name: 'Broken filter',
            matched: false,
            reason: 'filter_error',
            error: 'unknown function: nope()',
            run_id: null,
          },
        ],
        runs_created: [],
      });
      for (const record of [matched, ignored, filterError]) await ctx.adapter.deliveries.insert(record);
      for (const record of [matched, ignored, filterError]) {
        expect(await ctx.adapter.deliveries.get(record.org_id, record.id)).toEqual(record);
      }
    });

    it("get returns null for another org's delivery", async () => {
      const record = makeDeliveryRecord();
      await ctx.adapter.deliveries.insert(record);
      expect(await ctx.adapter.deliveries.get(uniqueId('org'), record.id)).toBeNull();
    });

    it('insert with an existing id throws StorageConflictError, even in another org, and keeps the stored one', async () => {
      const record = makeDeliveryRecord();
      await ctx.adapter.deliveries.insert(record);
      const duplicate = makeDeliveryRecord({ id: record.id, status: 'unmatched' });
      await expect(ctx.adapter.deliveries.insert(duplicate)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.deliveries.get(record.org_id, record.id)).toEqual(record);
      expect(await ctx.adapter.deliveries.get(duplicate.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.deliveries.list(duplicate.org_id, { limit: 10, offset: 0 })).toEqual({
        items: [],
        total: 0,
      });
    });

    it("list returns only the org's deliveries, newest first by received_at, then by id descending", async () => {
      const orgId = uniqueId('org');
      const base = uniqueId('dlv');
      const mine = (suffix: string, seconds: number): DeliveryRecord =>
        makeDeliveryRecord({ org_id: orgId, id: `${base}-${suffix}`, received_at: fixtureTime(seconds) });
      const early = mine('a', 10);
      const tieB = mine('b', 20);
      const tieC = mine('c', 20);
      const late = mine('d', 30);
      const elsewhere = makeDeliveryRecord({ received_at: fixtureTime(25) });
      for (const record of [tieB, late, elsewhere, early, tieC]) await ctx.adapter.deliveries.insert(record);
      expect(await ctx.adapter.deliveries.list(orgId, { limit: 10, offset: 0 })).toEqual({
        items: [late, tieC, tieB, early],
        total: 4,
      });
    });

    it('list compares received_at as instants, not as text', async () => {
      const orgId = uniqueId('org');
      const whole = makeDeliveryRecord({ org_id: orgId, received_at: '2025-01-01T00:00:01Z' });
      const half = makeDeliveryRecord({ org_id: orgId, received_at: '2025-01-01T00:00:01.500Z' });
      await ctx.adapter.deliveries.insert(whole);
      await ctx.adapter.deliveries.insert(half);
      expect((await ctx.adapter.deliveries.list(orgId, { limit: 10, offset: 0 })).items).toEqual([half, whole]);
    });

    it('list keeps its order whatever order the deliveries arrive in', async () => {
      const orgId = uniqueId('org');
      const count = 40;
      const records = Array.from({ length: count }, (_, n) =>
        // Pairs share an instant, so ids break some of the ties.
        makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(Math.floor(n / 2)) }),
      );
      // A fixed shuffle: mostly in order, with stragglers and early arrivals.
      const arrival = records.map((_, n) => records[(n * 17) % count] as DeliveryRecord);
      for (const record of arrival) await ctx.adapter.deliveries.insert(record);
      const expected = [...records].sort((a, b) => (a.received_at !== b.received_at ? (a.received_at < b.received_at ? 1 : -1) : a.id < b.id ? 1 : -1));
      expect(await ctx.adapter.deliveries.list(orgId, { limit: count, offset: 0 })).toEqual({
        items: expected,
        total: count,
      });
      expect(await ctx.adapter.deliveries.list(orgId, { limit: 7, offset: 13 })).toEqual({
        items: expected.slice(13, 20),
        total: count,
      });
    });

    it('list pages with limit and offset while total counts every delivery of the org', async () => {
      const orgId = uniqueId('org');
      const records = [0, 1, 2, 3, 4].map((n) => makeDeliveryRecord({ org_id: orgId, received_at: fixtureTime(n) }));
      for (const record of records) await ctx.adapter.deliveries.insert(record);
      const newestFirst = [...records].reverse();
      const list = (limit: number, offset: number) => ctx.adapter.deliveries.list(orgId, { limit, offset });
      expect(await list(2, 0)).toEqual({ items: newestFirst.slice(0, 2), total: 5 });
      expect(await list(2, 2)).toEqual({ items: newestFirst.slice(2, 4), total: 5 });
      expect(await list(2, 4)).toEqual({ items: newestFirst.slice(4), total: 5 });
      expect(await list(10, 5)).toEqual({ items: [], total: 5 });
      expect(await list(1, 100)).toEqual({ items: [], total: 5 });
    });

    it('list filters by source, by status, or both, paging and counting within the filter', async () => {
      const orgId = uniqueId('org');
      const make = (seconds: number, source: string, status: DeliveryRecord['status']) =>
        makeDeliveryRecord({ org_id: orgId, source, status, received_at: fixtureTime(seconds) });
      const githubMatched1 = make(1, 'github', 'matched');
      const stripeMatched = make(2, 'stripe', 'matched');
      const githubUnmatched = make(3, 'github', 'unmatched');
      const githubMatched2 = make(4, 'github', 'matched');
      const stripeIgnored = make(5, 'stripe', 'ignored');
      const githubMatched3 = make(6, 'github', 'matched');
      const otherOrg = makeDeliveryRecord({ source: 'github', status: 'matched', received_at: fixtureTime(7) });
      for (const record of [githubMatched1, stripeMatched, githubUnmatched, githubMatched2, stripeIgnored, githubMatched3, otherOrg]) {
        await ctx.adapter.deliveries.insert(record);
      }
      const list = (options: { source?: string; status?: DeliveryRecord['status']; limit?: number; offset?: number }) =>
        ctx.adapter.deliveries.list(orgId, { limit: 10, offset: 0, ...options });
      expect(await list({ source: 'github' })).toEqual({
        items: [githubMatched3, githubMatched2, githubUnmatched, githubMatched1],
        total: 4,
      });
      expect(await list({ status: 'matched' })).toEqual({
        items: [githubMatched3, githubMatched2, stripeMatched, githubMatched1],
        total: 4,
      });
      expect(await list({ source: 'github', status: 'matched' })).toEqual({
        items: [githubMatched3, githubMatched2, githubMatched1],
        total: 3,
      });
      expect(await list({ source: 'github', status: 'matched', limit: 1, offset: 1 })).toEqual({
        items: [githubMatched2],
        total: 3,
      });
      expect(await list({ source: 'stripe', status: 'ignored' })).toEqual({ items: [stripeIgnored], total: 1 });
      expect(await list({ status: 'duplicate' })).toEqual({ items: [], total: 0 });
      expect(await list({ source: 'linear' })).toEqual({ items: [], total: 0 });
      expect(await list({ source: 'github', limit: 10, offset: 4 })).toEqual({ items: [], total: 4 });
    });

    describe('claimDedupKey', () => {
      it('returns null for a free key, then the holding delivery id while the claim lives', async () => {
        const first = makeDeliveryRecord();
        const second = makeDeliveryRecord({ org_id: first.org_id, dedup_key: first.dedup_key });
        const third = makeDeliveryRecord({ org_id: first.org_id, dedup_key: first.dedup_key });
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(first))).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(second, { now: fixtureTime(60) }))).toBe(first.id);
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(third, { now: fixtureTime(3599), expiresAt: fixtureTime(7200) }))).toBe(first.id);
      });

      it('frees the key once the claim expires by the given now, and the new claim holds it', async () => {
        const first = makeDeliveryRecord();
        const second = makeDeliveryRecord({ org_id: first.org_id, dedup_key: first.dedup_key });
        const third = makeDeliveryRecord({ org_id: first.org_id, dedup_key: first.dedup_key });
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(first, { expiresAt: fixtureTime(60) }))).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(second, { now: fixtureTime(120), expiresAt: fixtureTime(180) }))).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(third, { now: fixtureTime(150) }))).toBe(second.id);
      });

      it('treats a claim as lapsed from its expiresAt instant on', async () => {
        const first = makeDeliveryRecord();
        const second = makeDeliveryRecord({ org_id: first.org_id, dedup_key: first.dedup_key });
        const third = makeDeliveryRecord({ org_id: first.org_id, dedup_key: first.dedup_key });
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(first, { expiresAt: fixtureTime(60) }))).toBeNull();
        const justBefore = '2025-01-01T00:00:59.999Z';
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(second, { now: justBefore }))).toBe(first.id);
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(third, { now: fixtureTime(60) }))).toBeNull();
      });

      it('keeps claims of different orgs, sources and keys apart', async () => {
        const claimed = makeDeliveryRecord();
        const otherOrg = makeDeliveryRecord({ dedup_key: claimed.dedup_key });
        const otherSource = makeDeliveryRecord({ org_id: claimed.org_id, source: 'stripe', dedup_key: claimed.dedup_key });
        const otherKey = makeDeliveryRecord({ org_id: claimed.org_id });
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(claimed))).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(otherOrg))).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(otherSource))).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(otherKey))).toBeNull();
        const again = (record: DeliveryRecord) => makeDedupClaim(record, { deliveryId: uniqueId('dlv'), now: fixtureTime(1) });
        expect(await ctx.adapter.deliveries.claimDedupKey(again(claimed))).toBe(claimed.id);
        expect(await ctx.adapter.deliveries.claimDedupKey(again(otherOrg))).toBe(otherOrg.id);
        expect(await ctx.adapter.deliveries.claimDedupKey(again(otherSource))).toBe(otherSource.id);
        expect(await ctx.adapter.deliveries.claimDedupKey(again(otherKey))).toBe(otherKey.id);
      });

      it('of concurrent transactions claiming the same key and recording the delivery, exactly one claims it', async () => {
        const orgId = uniqueId('org');
        const dedupKey = `id:${uniqueId('redelivery')}`;
        const attempts = Array.from({ length: ctx.concurrency }, () => makeDeliveryRecord({ org_id: orgId, dedup_key: dedupKey }));
        const holders = await Promise.all(
          attempts.map((delivery) =>
            ctx.adapter.transaction(async (tx) => {
              const holder = await tx.deliveries.claimDedupKey(makeDedupClaim(delivery));
              // Yield so a non-serializing adapter would let the others claim in between.
              await nextTurn();
              await tx.deliveries.insert(holder === null ? delivery : duplicateOf(delivery, holder));
              return holder;
            }),
          ),
        );
        const winners = attempts.filter((_, n) => holders[n] === null);
        expect(winners).toHaveLength(1);
        const winner = winners[0] as DeliveryRecord;
        expect(holders.filter((holder) => holder !== null)).toEqual(Array(ctx.concurrency - 1).fill(winner.id));
        expect(await ctx.adapter.deliveries.list(orgId, { limit: 1, offset: 0, status: 'matched' })).toEqual({
          items: [winner],
          total: 1,
        });
        expect((await ctx.adapter.deliveries.list(orgId, { limit: 1, offset: 0, status: 'duplicate' })).total).toBe(ctx.concurrency - 1);
      });

      it('a rolled-back transaction releases its claim', async () => {
        const rolledBack = makeDeliveryRecord();
        const retried = makeDeliveryRecord({ org_id: rolledBack.org_id, dedup_key: rolledBack.dedup_key });
        const error = new Error('rollback');
        await expect(
          ctx.adapter.transaction(async (tx) => {
            expect(await tx.deliveries.claimDedupKey(makeDedupClaim(rolledBack))).toBeNull();
            await tx.deliveries.insert(rolledBack);
            throw error;
          }),
        ).rejects.toBe(error);
        expect(await ctx.adapter.deliveries.get(rolledBack.org_id, rolledBack.id)).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(retried, { now: fixtureTime(1) }))).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(rolledBack, { deliveryId: uniqueId('dlv'), now: fixtureTime(2) }))).toBe(retried.id);
      });

      it('a rolled-back transaction undoes its takeover of an expired claim and keeps the live claim it found', async () => {
        const held = makeDeliveryRecord();
        const expired = makeDeliveryRecord({ org_id: held.org_id });
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(held))).toBeNull();
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(expired, { expiresAt: fixtureTime(10) }))).toBeNull();
        const error = new Error('rollback');
        await expect(
          ctx.adapter.transaction(async (tx) => {
            expect(await tx.deliveries.claimDedupKey(makeDedupClaim(held, { deliveryId: uniqueId('dlv'), now: fixtureTime(20) }))).toBe(held.id);
            const takeover = makeDedupClaim(expired, { deliveryId: uniqueId('dlv'), now: fixtureTime(20), expiresAt: fixtureTime(999) });
            expect(await tx.deliveries.claimDedupKey(takeover)).toBeNull();
            throw error;
          }),
        ).rejects.toBe(error);
        const later = { deliveryId: uniqueId('dlv'), now: fixtureTime(21) };
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(held, later))).toBe(held.id);
        // The takeover is undone: the key is back under the original, expired claim, so it is free.
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(expired, later))).toBeNull();
      });
    });

    describe('recordDelivery (the claim, the delivery and its runs in one atomic step)', () => {
      /** A delivery with two PENDING runs of its own org, and the claim of its key. */
      const write = (overrides: Partial<DeliveryRecord> = {}, claim: Partial<DedupClaim> = {}) => {
        const delivery = makeDeliveryRecord(overrides);
        const runs = [
          makeRunRecord({ org_id: delivery.org_id, delivery_id: delivery.id }),
          makeRunRecord({ org_id: delivery.org_id, delivery_id: delivery.id }),
        ];
        const { deliveryId: _unused, ...rest } = makeDedupClaim(delivery, claim);
        return { delivery, runs, claim: rest };
      };

      it('writes the delivery, its runs and the claim; a redelivery of the key writes nothing and names the holder', async () => {
        const first = write();
        expect(await ctx.adapter.deliveries.recordDelivery(first)).toEqual({ duplicateOf: null });
        expect(await ctx.adapter.deliveries.get(first.delivery.org_id, first.delivery.id)).toEqual(first.delivery);
        for (const run of first.runs) expect(await ctx.adapter.runs.get(run.org_id, run.id)).toEqual(run);
        const again = write({ org_id: first.delivery.org_id, source: first.delivery.source, dedup_key: first.delivery.dedup_key }, { now: fixtureTime(5) });
        expect(await ctx.adapter.deliveries.recordDelivery(again)).toEqual({ duplicateOf: first.delivery.id });
        expect(await ctx.adapter.deliveries.get(again.delivery.org_id, again.delivery.id)).toBeNull();
        for (const run of again.runs) expect(await ctx.adapter.runs.get(run.org_id, run.id)).toBeNull();
        // The claim is the one claimDedupKey sees.
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(again.delivery, { now: fixtureTime(6) }))).toBe(first.delivery.id);
      });

      it('without a claim, records every delivery (a replay is never deduplicated)', async () => {
        const one = write();
        const two = write({ org_id: one.delivery.org_id, source: one.delivery.source, dedup_key: one.delivery.dedup_key });
        expect(await ctx.adapter.deliveries.recordDelivery({ ...one, claim: null })).toEqual({ duplicateOf: null });
        expect(await ctx.adapter.deliveries.recordDelivery({ ...two, claim: null })).toEqual({ duplicateOf: null });
        expect(await ctx.adapter.deliveries.get(two.delivery.org_id, two.delivery.id)).toEqual(two.delivery);
        // Neither claimed the key.
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(one.delivery))).toBeNull();
      });

      it('takes over a claim that expired', async () => {
        const old = write({}, { expiresAt: fixtureTime(10) });
        expect(await ctx.adapter.deliveries.recordDelivery(old)).toEqual({ duplicateOf: null });
        const fresh = write({ org_id: old.delivery.org_id, source: old.delivery.source, dedup_key: old.delivery.dedup_key }, { now: fixtureTime(10) });
        expect(await ctx.adapter.deliveries.recordDelivery(fresh)).toEqual({ duplicateOf: null });
        expect(await ctx.adapter.deliveries.claimDedupKey(makeDedupClaim(fresh.delivery, { deliveryId: uniqueId('dlv'), now: fixtureTime(11) }))).toBe(
          fresh.delivery.id,
        );
      });

      it('a taken run id writes nothing: no delivery, no other run, and the key stays free', async () => {
        const taken = makeRunRecord();
        await ctx.adapter.runs.insertMany([taken]);
        const attempt = write();
        const conflicting = { ...attempt, runs: [attempt.runs[0] as RunRecord, { ...taken, org_id: attempt.delivery.org_id }] };
        await expect(ctx.adapter.deliveries.recordDelivery(conflicting)).rejects.toBeInstanceOf(StorageConflictError);
        expect(await ctx.adapter.deliveries.get(attempt.delivery.org_id, attempt.delivery.id)).toBeNull();
        expect(await ctx.adapter.runs.get(attempt.delivery.org_id, (attempt.runs[0] as RunRecord).id)).toBeNull();
        expect(await ctx.adapter.deliveries.recordDelivery(attempt)).toEqual({ duplicateOf: null });
      });

      it('of concurrent records of one key, exactly one writes; the others name it', async () => {
        const first = write();
        const racers = [
          first,
          ...Array.from({ length: 9 }, () => write({ org_id: first.delivery.org_id, source: first.delivery.source, dedup_key: first.delivery.dedup_key })),
        ];
        const answers = await Promise.all(racers.map((one) => ctx.adapter.deliveries.recordDelivery(one)));
        const winners = racers.filter((_, index) => answers[index]?.duplicateOf === null);
        expect(winners).toHaveLength(1);
        const winner = (winners[0] as (typeof racers)[number]).delivery.id;
        for (const answer of answers) if (answer.duplicateOf !== null) expect(answer.duplicateOf).toBe(winner);
        const stored = await Promise.all(racers.map((one) => ctx.adapter.deliveries.get(one.delivery.org_id, one.delivery.id)));
        expect(stored.filter(Boolean)).toHaveLength(1);
      });

      it('of concurrent records of many keys, each sent three times, one per key writes and the others name it', async () => {
        const orgId = uniqueId('org');
        const firsts = Array.from({ length: 12 }, () => write({ org_id: orgId }));
        const all = firsts.flatMap((first) => [
          first,
          write({ org_id: orgId, source: first.delivery.source, dedup_key: first.delivery.dedup_key }),
          write({ org_id: orgId, source: first.delivery.source, dedup_key: first.delivery.dedup_key }),
        ]);
        // Interleaved, so the copies of one key are never next to each other.
        const order = all.map((_, index) => index).sort((a, b) => (a % 3) - (b % 3) || a - b);
        const answers = await Promise.all(order.map((index) => ctx.adapter.deliveries.recordDelivery(all[index] as (typeof all)[number])));
        const answerOf = new Map(order.map((index, position) => [index, answers[position]]));
        for (let key = 0; key < firsts.length; key += 1) {
          const copies = [0, 1, 2].map((copy) => key * 3 + copy);
          const winners = copies.filter((index) => answerOf.get(index)?.duplicateOf === null);
          expect(winners).toHaveLength(1);
          const winner = (all[winners[0] as number] as (typeof all)[number]).delivery.id;
          for (const index of copies) if (index !== winners[0]) expect(answerOf.get(index)).toEqual({ duplicateOf: winner });
        }
        expect((await ctx.adapter.deliveries.list(orgId, { limit: 100, offset: 0 })).total).toBe(firsts.length);
      });

      it('a refused record among concurrent ones fails alone: the others are written', async () => {
        const taken = makeRunRecord();
        await ctx.adapter.runs.insertMany([taken]);
        const orgId = uniqueId('org');
        const writes = Array.from({ length: 8 }, () => write({ org_id: orgId }));
        const refused = writes[5] as (typeof writes)[number];
        refused.runs = [{ ...taken, org_id: orgId }];
        const results = await Promise.allSettled(writes.map((one) => ctx.adapter.deliveries.recordDelivery(one)));
        for (const [index, result] of results.entries()) {
          if (index === 5) {
            expect(result.status).toBe('rejected');
            expect((result as PromiseRejectedResult).reason).toBeInstanceOf(StorageConflictError);
          } else expect(result).toEqual({ status: 'fulfilled', value: { duplicateOf: null } });
        }
        const listed = await ctx.adapter.deliveries.list(orgId, { limit: 100, offset: 0 });
        expect(new Set(listed.items.map((delivery) => delivery.id))).toEqual(new Set(writes.filter((one) => one !== refused).map((one) => one.delivery.id)));
        for (const one of writes) for (const run of one.runs) if (one !== refused) expect(await ctx.adapter.runs.get(run.org_id, run.id)).toEqual(run);
      });

      it('inside a transaction that rolls back, leaves nothing', async () => {
        const undone = write();
        const error = new Error('rollback');
        await expect(
          ctx.adapter.transaction(async (tx) => {
            expect(await tx.deliveries.recordDelivery(undone)).toEqual({ duplicateOf: null });
            throw error;
          }),
        ).rejects.toBe(error);
        expect(await ctx.adapter.deliveries.get(undone.delivery.org_id, undone.delivery.id)).toBeNull();
        for (const run of undone.runs) expect(await ctx.adapter.runs.get(run.org_id, run.id)).toBeNull();
        expect(await ctx.adapter.deliveries.recordDelivery(undone)).toEqual({ duplicateOf: null });
      });
    });
  });
}
