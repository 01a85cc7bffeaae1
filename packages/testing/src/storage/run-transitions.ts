/**
 * Conformance: `runs.transition`, the compare-and-set every run status change goes through
 * in the run state machine. It writes only when the run is in a state the guard allows; final statuses never
 * change; of concurrent transitions from one state exactly one wins.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { present } from '../fixtures/present.js';
import { FINAL_RUN_STATUSES } from '@agent-platform/core';
import type { RunRecord, RunStatus } from '@agent-platform/core';
import { fixtureTime, makeRunRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

export function describeRunTransitions(ctx: SuiteContext): void {
  describe('runs.transition', () => {
    const stored = (run: RunRecord) => ctx.adapter.runs.get(run.org_id, run.id);

    it('writes the patch when the status is one the guard names, and returns the run as stored', async () => {
      const run = makeRunRecord();
      await ctx.adapter.runs.insertMany([run]);
      const running = await ctx.adapter.runs.transition(
        run.org_id,
        run.id,
        { from: ['PENDING'] },
        {
          status: 'RUNNING',
          attempt: 1,
          started_at: fixtureTime(5),
          lease_owner: 'wkr-a',
          lease_expires_at: fixtureTime(35),
        },
      );
      expect(running).toEqual({ ...run, status: 'RUNNING', attempt: 1, started_at: fixtureTime(5), lease_owner: 'wkr-a', lease_expires_at: fixtureTime(35) });
      expect(await stored(run)).toEqual(running);
    });

    it('writes nothing and answers null when the status is not one the guard names', async () => {
      const run = makeRunRecord({ status: 'RUNNING', attempt: 1 });
      await ctx.adapter.runs.insertMany([run]);
      expect(await ctx.adapter.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, { status: 'CANCELLED' })).toBeNull();
      expect(await ctx.adapter.runs.transition(run.org_id, run.id, { from: [] }, { status: 'CANCELLED' })).toBeNull();
      expect(await stored(run)).toEqual(run);
    });

    it('answers null for an unknown run and for another org’s run, writing nothing', async () => {
      const run = makeRunRecord();
      await ctx.adapter.runs.insertMany([run]);
      expect(await ctx.adapter.runs.transition(run.org_id, uniqueId('run'), { from: ['PENDING'] }, { status: 'CANCELLED' })).toBeNull();
      expect(await ctx.adapter.runs.transition(uniqueId('org'), run.id, { from: ['PENDING'] }, { status: 'CANCELLED' })).toBeNull();
      expect(await stored(run)).toEqual(run);
    });

    for (const final of FINAL_RUN_STATUSES) {
      it(`never moves a ${final} run, even when the guard names ${final}`, async () => {
        const run = makeRunRecord({ status: final, attempt: 1, completed_at: fixtureTime(9) });
        await ctx.adapter.runs.insertMany([run]);
        for (const status of ['PENDING', 'RUNNING', 'COMPLETED', 'CANCELLED'] as RunStatus[]) {
          expect(await ctx.adapter.runs.transition(run.org_id, run.id, { from: [final] }, { status })).toBeNull();
        }
        // Not even a patch that leaves the status alone.
        expect(await ctx.adapter.runs.transition(run.org_id, run.id, { from: [...FINAL_RUN_STATUSES] }, { conversation_id: 'conv-late' })).toBeNull();
        expect(await stored(run)).toEqual(run);
      });
    }

    it('with a lease owner in the guard, writes only when the run is held by that owner', async () => {
      const held = makeRunRecord({ status: 'RUNNING', attempt: 1, lease_owner: 'wkr-a', lease_expires_at: fixtureTime(30) });
      const free = makeRunRecord({ org_id: held.org_id });
      await ctx.adapter.runs.insertMany([held, free]);
      expect(await ctx.adapter.runs.transition(held.org_id, held.id, { from: ['RUNNING'], leaseOwner: 'wkr-b' }, { status: 'COMPLETED' })).toBeNull();
      expect(await ctx.adapter.runs.transition(held.org_id, held.id, { from: ['RUNNING'], leaseOwner: null }, { status: 'COMPLETED' })).toBeNull();
      expect(await stored(held)).toEqual(held);
      // `null` in the guard: held by nobody — a run that never had the field counts as such.
      expect(await ctx.adapter.runs.transition(free.org_id, free.id, { from: ['PENDING'], leaseOwner: 'wkr-a' }, { status: 'RUNNING' })).toBeNull();
      expect(await ctx.adapter.runs.transition(free.org_id, free.id, { from: ['PENDING'], leaseOwner: null }, { error_detail: 'noted' })).toMatchObject({
        status: 'PENDING',
        error_detail: 'noted',
      });
      const done = await ctx.adapter.runs.transition(
        held.org_id,
        held.id,
        { from: ['RUNNING'], leaseOwner: 'wkr-a' },
        {
          status: 'COMPLETED',
          completed_at: fixtureTime(40),
          lease_owner: null,
          lease_expires_at: null,
        },
      );
      expect(done).toEqual({ ...held, status: 'COMPLETED', completed_at: fixtureTime(40), lease_owner: null, lease_expires_at: null });
      expect(await stored(held)).toEqual(done);
    });

    it('leaves members the patch does not name (or names as undefined) as they were; null clears', async () => {
      const run = makeRunRecord({ status: 'RUNNING', attempt: 2, error_detail: 'attempt 1 failed', conversation_id: 'conv-1', started_at: fixtureTime(3) });
      await ctx.adapter.runs.insertMany([run]);
      const next = await ctx.adapter.runs.transition(
        run.org_id,
        run.id,
        { from: ['RUNNING'] },
        { sandbox_id: 'sbx-1', conversation_id: undefined, error_detail: null },
      );
      expect(next).toEqual({ ...run, sandbox_id: 'sbx-1', error_detail: null });
      expect(await stored(run)).toEqual(next);
    });

    it('never changes what identifies a run or where it came from', async () => {
      const run = makeRunRecord();
      await ctx.adapter.runs.insertMany([run]);
      const hostile = { status: 'RUNNING', id: 'other', org_id: 'other', automation_id: 'other', created_at: fixtureTime(99), dispatch_payload_json: '{}' };
      const next = await ctx.adapter.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, hostile as never);
      expect(next).toEqual({ ...run, status: 'RUNNING' });
      expect(await stored(run)).toEqual(next);
      expect(await ctx.adapter.runs.get('other', 'other')).toBeNull();
    });

    it('of concurrent transitions from one state, exactly one wins', async () => {
      const run = makeRunRecord();
      await ctx.adapter.runs.insertMany([run]);
      const attempts = Array.from({ length: ctx.concurrency }, (_, n) =>
        n % 2 === 0
          ? ctx.adapter.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, { status: 'RUNNING', lease_owner: `wkr-${n}` })
          : ctx.adapter.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, { status: 'CANCELLED', error_detail: `cancel-${n}` }),
      );
      const results = await Promise.all(attempts);
      const winners = results.filter((result): result is RunRecord => result !== null);
      expect(winners).toHaveLength(1);
      expect(await stored(run)).toEqual(winners[0]);
    });

    it('of concurrent transitions in transactions, exactly one wins', async () => {
      const run = makeRunRecord({ status: 'RUNNING', attempt: 1, lease_owner: 'wkr-a' });
      await ctx.adapter.runs.insertMany([run]);
      const results = await Promise.all(
        Array.from({ length: ctx.concurrency }, (_, n) =>
          ctx.adapter.transaction((tx) =>
            tx.runs.transition(run.org_id, run.id, { from: ['PENDING', 'RUNNING'] }, { status: n % 2 ? 'CANCELLED' : 'COMPLETED', error_detail: `by-${n}` }),
          ),
        ),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      expect(await stored(run)).toEqual(winners[0]);
    });

    it('a transition in a rolled-back transaction is undone', async () => {
      const run = makeRunRecord();
      await ctx.adapter.runs.insertMany([run]);
      const error = new Error('rollback');
      await expect(
        ctx.adapter.transaction(async (tx) => {
          expect(await tx.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, { status: 'CANCELLED' })).not.toBeNull();
          // Inside, the transaction sees its own write: the run is final now.
          expect(await tx.runs.transition(run.org_id, run.id, { from: ['PENDING', 'CANCELLED'] }, { status: 'RUNNING' })).toBeNull();
          throw error;
        }),
      ).rejects.toBe(error);
      expect(await stored(run)).toEqual(run);
      expect(await ctx.adapter.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, { status: 'RUNNING' })).toMatchObject({ status: 'RUNNING' });
    });

    it('returns a copy: changing it changes nothing stored', async () => {
      const run = makeRunRecord();
      await ctx.adapter.runs.insertMany([run]);
      const next = await ctx.adapter.runs.transition(run.org_id, run.id, { from: ['PENDING'] }, { status: 'RUNNING' });
      const expected = structuredClone(next);
      present(next).status = 'COMPLETED';
      expect(await stored(run)).toEqual(expected);
    });
  });
}
