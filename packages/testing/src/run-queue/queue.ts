/**
 * Conformance: the `RunQueue` — claims oldest first within the per-org and global
 * limits counted over every process, leases that are renewed, completed, released and recovered.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { ClaimRequest, RunQueueLimits, RunRecord, StorageAdapter } from '@agent-platform/core';
import { fixtureTime, makeRunRecord, uniqueId } from '../fixtures/records.js';
import { present } from '../fixtures/present.js';
import type { QueueSuiteContext } from './context.js';

/** The clock of every claim: later than every fixture run's creation. */
const NOW = new Date(fixtureTime(1000));
const LEASE_MS = 30_000;
const NO_LIMITS: RunQueueLimits = { perOrg: Infinity, global: Infinity };

function claim(storage: StorageAdapter, overrides: Partial<ClaimRequest> = {}): Promise<RunRecord[]> {
  return storage.runQueue.claim({ owner: 'wkr-a', max: 10, leaseMs: LEASE_MS, now: NOW, limits: NO_LIMITS, ...overrides });
}

const ids = (runs: readonly { id: string }[]) => runs.map((run) => run.id);
const ref = (run: RunRecord) => ({ orgId: run.org_id, id: run.id });

/** A RUNNING run held by `owner`, as a claim would have left it. */
function held(owner: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return makeRunRecord({
    status: 'RUNNING',
    attempt: 1,
    started_at: fixtureTime(1),
    lease_owner: owner,
    lease_expires_at: new Date(NOW.getTime() + LEASE_MS).toISOString(),
    ...overrides,
  });
}

export function describeRunQueue(ctx: QueueSuiteContext): void {
  describe('RunQueue', () => {
    describe('claim', () => {
      it('takes PENDING runs oldest first (then by id) and writes what a claim writes', async () => {
        const storage = await ctx.backend.open();
        const base = uniqueId('run');
        const late = makeRunRecord({ id: `${base}-a`, created_at: fixtureTime(30), error_detail: 'attempt 1 failed: boom', attempt: 1 });
        const tieC = makeRunRecord({ id: `${base}-c`, created_at: fixtureTime(20) });
        const tieB = makeRunRecord({ id: `${base}-b`, created_at: fixtureTime(20) });
        const early = makeRunRecord({ id: `${base}-d`, created_at: fixtureTime(10), not_before: fixtureTime(11) });
        const done = makeRunRecord({ created_at: fixtureTime(1), status: 'COMPLETED', completed_at: fixtureTime(2) });
        await storage.runs.insertMany([late, tieC, done, tieB, early]);
        const claimed = await claim(storage, { max: 3 });
        expect(ids(claimed)).toEqual([early.id, tieB.id, tieC.id]);
        const until = new Date(NOW.getTime() + LEASE_MS).toISOString();
        expect(claimed[0]).toEqual({
          ...early,
          status: 'RUNNING',
          attempt: 1,
          started_at: NOW.toISOString(),
          error_detail: null,
          not_before: null,
          held_reason: null,
          lease_owner: 'wkr-a',
          lease_expires_at: until,
        });
        for (const run of claimed) expect(await storage.runs.get(run.org_id, run.id)).toEqual(run);
        const rest = await claim(storage, { owner: 'wkr-b' });
        expect(rest).toEqual([
          {
            ...late,
            status: 'RUNNING',
            attempt: 2,
            started_at: NOW.toISOString(),
            error_detail: null,
            not_before: null,
            held_reason: null,
            lease_owner: 'wkr-b',
            lease_expires_at: until,
          },
        ]);
        expect(await claim(storage)).toEqual([]);
      });

      it('claims nothing with max 0, and never a run in another status', async () => {
        const storage = await ctx.backend.open();
        const runs = (['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'] as const).map((status) => makeRunRecord({ status }));
        const pending = makeRunRecord();
        await storage.runs.insertMany([...runs, pending]);
        expect(await claim(storage, { max: 0 })).toEqual([]);
        expect(ids(await claim(storage))).toEqual([pending.id]);
        for (const run of runs) expect(await storage.runs.get(run.org_id, run.id)).toEqual(run);
      });

      it('leaves a run alone until its not_before has passed', async () => {
        const storage = await ctx.backend.open();
        const waiting = makeRunRecord({ not_before: new Date(NOW.getTime() + 5_000).toISOString() });
        await storage.runs.insertMany([waiting]);
        expect(await claim(storage)).toEqual([]);
        expect(await claim(storage, { now: new Date(NOW.getTime() + 4_999) })).toEqual([]);
        expect(ids(await claim(storage, { now: new Date(NOW.getTime() + 5_000) }))).toEqual([waiting.id]);
      });

      it('counts runs RUNNING under any owner against the per-org limit', async () => {
        const storage = await ctx.backend.open();
        const org = uniqueId('org');
        const other = uniqueId('org');
        const busy = held('wkr-elsewhere', { org_id: org });
        const mine = [1, 2, 3].map((n) => makeRunRecord({ org_id: org, created_at: fixtureTime(n) }));
        const theirs = makeRunRecord({ org_id: other, created_at: fixtureTime(9) });
        await storage.runs.insertMany([busy, ...mine, theirs]);
        const claimed = await claim(storage, { limits: { perOrg: 2, global: Infinity } });
        expect(ids(claimed)).toEqual([present(mine[0]).id, theirs.id]);
        // The org is at its limit now: nothing more of it, whoever asks.
        expect(await claim(storage, { owner: 'wkr-b', limits: { perOrg: 2, global: Infinity } })).toEqual([]);
      });

      it('an org at its limit never holds back the runs of other orgs queued behind it', async () => {
        const storage = await ctx.backend.open();
        const crowd = uniqueId('org');
        const backlog = Array.from({ length: 60 }, (_, n) => makeRunRecord({ org_id: crowd, created_at: fixtureTime(n) }));
        const late = [makeRunRecord({ created_at: fixtureTime(100) }), makeRunRecord({ created_at: fixtureTime(101) })];
        await storage.runs.insertMany([...backlog, ...late]);
        const claimed = await claim(storage, { max: 3, limits: { perOrg: 1, global: Infinity } });
        expect(ids(claimed)).toEqual([present(backlog[0]).id, present(late[0]).id, present(late[1]).id]);
      });

      it('stops at the global limit, counting runs RUNNING under any owner', async () => {
        const storage = await ctx.backend.open();
        const running = [held('wkr-x'), held('wkr-y')];
        const pending = [1, 2, 3].map((n) => makeRunRecord({ created_at: fixtureTime(n) }));
        await storage.runs.insertMany([...running, ...pending]);
        expect(ids(await claim(storage, { limits: { perOrg: Infinity, global: 3 } }))).toEqual([present(pending[0]).id]);
        expect(await claim(storage, { limits: { perOrg: Infinity, global: 3 } })).toEqual([]);
      });

      it('concurrent claims from several processes never take one run twice nor exceed the limits together', async () => {
        const adapters = [await ctx.backend.open(), await ctx.backend.open()] as const;
        const orgs = [uniqueId('org'), uniqueId('org'), uniqueId('org')];
        const runs = Array.from({ length: 30 }, (_, n) => makeRunRecord({ org_id: orgs[n % 3], created_at: fixtureTime(n) }));
        await adapters[0].runs.insertMany(runs);
        const limits = { perOrg: 2, global: 5 };
        const results = await Promise.all(
          Array.from({ length: ctx.concurrency }, (_, n) => claim(present(adapters[n % 2]), { owner: `wkr-${n}`, max: 3, limits })),
        );
        const claimed = results.flat();
        expect(new Set(ids(claimed)).size).toBe(claimed.length);
        expect(claimed.length).toBe(5);
        for (const org of orgs) expect(claimed.filter((run) => run.org_id === org).length).toBeLessThanOrEqual(2);
        // What each claim returned is what is stored.
        for (const run of claimed) expect(await adapters[1].runs.get(run.org_id, run.id)).toEqual(run);
      });

      it('concurrent claims without limits share out every run exactly once', async () => {
        const adapters = [await ctx.backend.open(), await ctx.backend.open()] as const;
        const runs = Array.from({ length: 40 }, (_, n) => makeRunRecord({ created_at: fixtureTime(n) }));
        await adapters[0].runs.insertMany(runs);
        const results = await Promise.all(Array.from({ length: ctx.concurrency }, (_, n) => claim(present(adapters[n % 2]), { owner: `wkr-${n}`, max: 5 })));
        const claimed = results.flat();
        expect(new Set(ids(claimed)).size).toBe(claimed.length);
        const left = await claim(adapters[0], { owner: 'wkr-last', max: 100 });
        expect([...ids(claimed), ...ids(left)].sort()).toEqual(ids(runs).sort());
      });
    });

    describe('claim and concurrency keys', () => {
      const until = new Date(NOW.getTime() + LEASE_MS).toISOString();
      const done = { status: 'COMPLETED' as const, error_detail: null, completed_at: fixtureTime(500) };

      it('holds back a run while a run of its automation with the same key is RUNNING, and takes it once that one finished', async () => {
        const storage = await ctx.backend.open();
        const scope = { org_id: uniqueId('org'), automation_id: uniqueId('auto') };
        const busy = held('wkr-x', { ...scope, concurrency_key: 'pr-7' });
        const waiting = makeRunRecord({ ...scope, concurrency_key: 'pr-7', held_reason: 'queued behind another run of pr-7', created_at: fixtureTime(1) });
        await storage.runs.insertMany([busy, waiting]);
        expect(await claim(storage)).toEqual([]);
        expect(await storage.runQueue.complete('wkr-x', ref(busy), done)).not.toBeNull();
        expect(await claim(storage)).toEqual([
          {
            ...waiting,
            status: 'RUNNING',
            attempt: 1,
            started_at: NOW.toISOString(),
            error_detail: null,
            not_before: null,
            held_reason: null,
            lease_owner: 'wkr-a',
            lease_expires_at: until,
          },
        ]);
      });

      it('never takes two PENDING runs of one automation with the same key in one claim', async () => {
        const storage = await ctx.backend.open();
        const scope = { org_id: uniqueId('org'), automation_id: uniqueId('auto') };
        const keyed = (n: number) => makeRunRecord({ ...scope, concurrency_key: 'pr-7', created_at: fixtureTime(n) });
        const [first, second, third] = [keyed(1), keyed(2), keyed(3)];
        const otherKey = makeRunRecord({ ...scope, concurrency_key: 'pr-8', created_at: fixtureTime(4) });
        await storage.runs.insertMany([first, second, third, otherKey]);
        expect(ids(await claim(storage))).toEqual([first.id, otherKey.id]);
        expect(await claim(storage, { owner: 'wkr-b' })).toEqual([]);
        await storage.runQueue.complete('wkr-a', ref(first), done);
        expect(ids(await claim(storage, { owner: 'wkr-b' }))).toEqual([second.id]);
        // A run handed back to the queue frees its key as well.
        await storage.runQueue.release('wkr-b', ref(second), { error_detail: null, not_before: null, attempt: 1 });
        expect(ids(await claim(storage, { owner: 'wkr-c' }))).toEqual([second.id]);
      });

      it('keeps keys apart per automation, and leaves runs without a key alone', async () => {
        const storage = await ctx.backend.open();
        const orgId = uniqueId('org');
        const a = uniqueId('auto');
        const b = uniqueId('auto');
        const pending = (automation_id: string, n: number, concurrency_key?: string | null): RunRecord => {
          const run = makeRunRecord({ org_id: orgId, automation_id, created_at: fixtureTime(n) });
          return concurrency_key === undefined ? run : { ...run, concurrency_key };
        };
        const busyKeyed = held('wkr-x', { org_id: orgId, automation_id: a, concurrency_key: 'K' });
        const busyUnkeyed = held('wkr-x', { org_id: orgId, automation_id: a, concurrency_key: null });
        const blocked = pending(a, 1, 'K');
        const sameKeyOtherAutomation = pending(b, 2, 'K');
        const nullKeys = [pending(a, 3, null), pending(a, 4, null)];
        const absentKey = pending(a, 5);
        const lookAlikes = [pending(a, 6, 'k'), pending(a, 7, ''), pending(a, 8, 'K ')];
        await storage.runs.insertMany([busyKeyed, busyUnkeyed, blocked, sameKeyOtherAutomation, ...nullKeys, absentKey, ...lookAlikes]);
        expect(ids(await claim(storage))).toEqual(ids([sameKeyOtherAutomation, ...nullKeys, absentKey, ...lookAlikes]));
        expect(await storage.runs.get(orgId, blocked.id)).toEqual(blocked);
      });

      it('concurrent claims from several processes take one run of a key at a time, and every run without one', async () => {
        const adapters = [await ctx.backend.open(), await ctx.backend.open()] as const;
        const scope = { org_id: uniqueId('org'), automation_id: uniqueId('auto') };
        const keyed = Array.from({ length: 8 }, (_, n) => makeRunRecord({ ...scope, concurrency_key: 'deploy', created_at: fixtureTime(n) }));
        const unkeyed = Array.from({ length: 4 }, (_, n) => makeRunRecord({ ...scope, concurrency_key: null, created_at: fixtureTime(n) }));
        await adapters[0].runs.insertMany([...keyed, ...unkeyed]);
        const results = await Promise.all(Array.from({ length: ctx.concurrency }, (_, n) => claim(present(adapters[n % 2]), { owner: `wkr-${n}`, max: 3 })));
        const claimed = results.flat();
        expect(new Set(ids(claimed)).size).toBe(claimed.length);
        expect(claimed.filter((run) => run.concurrency_key === 'deploy')).toHaveLength(1);
        expect(ids(claimed.filter((run) => run.concurrency_key !== 'deploy')).sort()).toEqual(ids(unkeyed).sort());
      });
    });

    describe('leases', () => {
      it('renew extends the leases the owner still holds and answers which those are', async () => {
        const storage = await ctx.backend.open();
        await storage.runs.insertMany([1, 2, 3].map((n) => makeRunRecord({ created_at: fixtureTime(n) })));
        const ours = await claim(storage, { owner: 'wkr-a' });
        const [a, b, c] = [present(ours[0]), present(ours[1]), present(ours[2])];
        const theirs = held('wkr-b');
        await storage.runs.insertMany([theirs]);
        // One of ours was cancelled meanwhile.
        await storage.runs.transition(c.org_id, c.id, { from: ['RUNNING'] }, { status: 'CANCELLED' });
        const later = new Date(NOW.getTime() + 90_000).toISOString();
        const kept = await storage.runQueue.renew('wkr-a', [ref(a), ref(b), ref(c), ref(theirs), { orgId: uniqueId('org'), id: uniqueId('run') }], later);
        expect(kept.map((run) => run.id).sort()).toEqual([a.id, b.id].sort());
        expect((await storage.runs.get(a.org_id, a.id))?.lease_expires_at).toBe(later);
        expect(await storage.runs.get(theirs.org_id, theirs.id)).toEqual(theirs);
        expect((await storage.runs.get(c.org_id, c.id))?.lease_expires_at).toBe(c.lease_expires_at);
        expect(await storage.runQueue.renew('wkr-a', [], later)).toEqual([]);
      });

      it('complete ends a run the owner holds, and nothing else', async () => {
        const storage = await ctx.backend.open();
        const mine = held('wkr-a');
        const theirs = held('wkr-b');
        const cancelled = makeRunRecord({ status: 'CANCELLED', lease_owner: 'wkr-a', completed_at: fixtureTime(3) });
        await storage.runs.insertMany([mine, theirs, cancelled]);
        const completion = { status: 'COMPLETED' as const, error_detail: null, completed_at: fixtureTime(50) };
        const done = await storage.runQueue.complete('wkr-a', ref(mine), completion);
        expect(done).toEqual({ ...mine, ...completion, lease_owner: null, lease_expires_at: null });
        expect(await storage.runs.get(mine.org_id, mine.id)).toEqual(done);
        expect(await storage.runQueue.complete('wkr-a', ref(theirs), completion)).toBeNull();
        expect(await storage.runQueue.complete('wkr-a', ref(cancelled), completion)).toBeNull();
        expect(await storage.runQueue.complete('wkr-a', ref(mine), { ...completion, status: 'FAILED' })).toBeNull();
        expect(await storage.runs.get(theirs.org_id, theirs.id)).toEqual(theirs);
        expect(await storage.runs.get(cancelled.org_id, cancelled.id)).toEqual(cancelled);
      });

      it('release hands a held run back to the queue, for any owner to claim once due', async () => {
        const storage = await ctx.backend.open();
        await storage.runs.insertMany([makeRunRecord()]);
        const run = present((await claim(storage, { owner: 'wkr-a' }))[0]);
        const due = new Date(NOW.getTime() + 2_000).toISOString();
        const released = await storage.runQueue.release('wkr-a', ref(run), { error_detail: 'attempt 1 failed: flaky', not_before: due, attempt: 1 });
        expect(released).toEqual({
          ...run,
          status: 'PENDING',
          error_detail: 'attempt 1 failed: flaky',
          not_before: due,
          attempt: 1,
          lease_owner: null,
          lease_expires_at: null,
        });
        expect(await storage.runQueue.release('wkr-a', ref(run), { error_detail: null, not_before: null, attempt: 0 })).toBeNull();
        expect(await claim(storage, { owner: 'wkr-b' })).toEqual([]);
        const again = await claim(storage, { owner: 'wkr-b', now: new Date(due) });
        expect(again).toEqual([expect.objectContaining({ id: run.id, attempt: 2, lease_owner: 'wkr-b', error_detail: null, not_before: null })]);
        expect(await storage.runQueue.release('wkr-a', ref(run), { error_detail: null, not_before: null, attempt: 0 })).toBeNull();
      });

      it('recover puts lapsed runs back to PENDING, or FAILED after their last attempt, and leaves live leases alone', async () => {
        const storage = await ctx.backend.open();
        const past = new Date(NOW.getTime() - 1).toISOString();
        const lapsed = held('wkr-dead', { attempt: 1, lease_expires_at: past });
        const atNow = held('wkr-dead', { attempt: 2, lease_expires_at: NOW.toISOString() });
        const noLease = held('wkr-dead', { attempt: 1, lease_owner: null, lease_expires_at: null });
        const last = held('wkr-dead', { attempt: 3, lease_expires_at: past });
        const live = held('wkr-alive', { attempt: 3 });
        const pending = makeRunRecord();
        await storage.runs.insertMany([lapsed, atNow, noLease, last, live, pending]);
        const recovered = await storage.runQueue.recover(NOW, 3);
        expect(recovered.requeued.map((run) => run.id).sort()).toEqual([lapsed.id, atNow.id, noLease.id].sort());
        expect(recovered.failed).toEqual([ref(last)]);
        const cleared = { lease_owner: null, lease_expires_at: null };
        expect(await storage.runs.get(lapsed.org_id, lapsed.id)).toEqual({
          ...lapsed,
          ...cleared,
          status: 'PENDING',
          error_detail: 'attempt 1 was interrupted: its executor stopped',
        });
        expect(await storage.runs.get(atNow.org_id, atNow.id)).toMatchObject({
          status: 'PENDING',
          attempt: 2,
          error_detail: 'attempt 2 was interrupted: its executor stopped',
        });
        expect(await storage.runs.get(last.org_id, last.id)).toEqual({
          ...last,
          ...cleared,
          status: 'FAILED',
          completed_at: NOW.toISOString(),
          error_detail: 'attempt 3 was interrupted: its executor stopped',
        });
        expect(await storage.runs.get(live.org_id, live.id)).toEqual(live);
        expect(await storage.runs.get(pending.org_id, pending.id)).toEqual(pending);
        // Recovered runs are claimable again, attempt counted on.
        const again = await claim(storage, { owner: 'wkr-new' });
        expect(again.find((run) => run.id === lapsed.id)?.attempt).toBe(2);
        expect(await storage.runQueue.recover(NOW, 3)).toEqual({ requeued: [], failed: [] });
      });

      it('a lease renewed before recovery is not recovered, and a recovered run is no longer its old owner’s', async () => {
        const storage = await ctx.backend.open();
        const run = held('wkr-a', { lease_expires_at: new Date(NOW.getTime() - 1).toISOString() });
        const other = held('wkr-b', { lease_expires_at: new Date(NOW.getTime() - 1).toISOString() });
        await storage.runs.insertMany([run, other]);
        expect(await storage.runQueue.renew('wkr-a', [ref(run)], new Date(NOW.getTime() + LEASE_MS).toISOString())).toEqual([ref(run)]);
        expect(await storage.runQueue.recover(NOW, 3)).toEqual({ requeued: [ref(other)], failed: [] });
        expect(await storage.runQueue.renew('wkr-b', [ref(other)], new Date(NOW.getTime() + LEASE_MS).toISOString())).toEqual([]);
        expect(await storage.runQueue.complete('wkr-b', ref(other), { status: 'COMPLETED', error_detail: null, completed_at: NOW.toISOString() })).toBeNull();
      });

      it('concurrent recoveries from several processes recover each run once', async () => {
        const adapters = [await ctx.backend.open(), await ctx.backend.open()] as const;
        const lapsed = Array.from({ length: 10 }, () => held('wkr-dead', { lease_expires_at: new Date(0).toISOString() }));
        await adapters[0].runs.insertMany(lapsed);
        const results = await Promise.all(Array.from({ length: 6 }, (_, n) => present(adapters[n % 2]).runQueue.recover(NOW, 3)));
        const requeued = results.flatMap((result) => result.requeued.map((run) => run.id));
        expect(requeued.sort()).toEqual(ids(lapsed).sort());
      });
    });
  });
}
