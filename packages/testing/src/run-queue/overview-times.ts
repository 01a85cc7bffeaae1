/**
 * Conformance: what the queue writes to a run (a claim's `started_at`, a completion's or a
 * recovery's `completed_at`) is what `runs.overview` times it by, whatever statement the adapter
 * writes it with.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { fixtureTime, makeRunRecord, uniqueId } from '../fixtures/records.js';
import type { QueueSuiteContext } from './context.js';

const PERIOD = { from: fixtureTime(0), to: fixtureTime(3_600), bucket: 'hour' as const };

export function describeOverviewTimes(ctx: QueueSuiteContext): void {
  describe('runs.overview after the queue', () => {
    it('times a run from its claim to its completion, and one recovered as FAILED from its claim to the recovery', async () => {
      const storage = await ctx.backend.open();
      const orgId = uniqueId('org');
      const done = makeRunRecord({ org_id: orgId, created_at: fixtureTime(10) });
      const lost = makeRunRecord({ org_id: orgId, created_at: fixtureTime(20) });
      await storage.runs.insertMany([done, lost]);
      const claimed = await storage.runQueue.claim({
        owner: 'wkr-a',
        max: 10,
        leaseMs: 30_000,
        now: new Date(fixtureTime(100)),
        limits: { perOrg: Infinity, global: Infinity },
      });
      expect(claimed.map((run) => run.id).sort()).toEqual([done.id, lost.id].sort());
      expect((await storage.runs.overview(orgId, PERIOD)).totals).toEqual({ RUNNING: 2 });
      await storage.runQueue.complete('wkr-a', { orgId, id: done.id }, { status: 'COMPLETED', error_detail: null, completed_at: fixtureTime(160) });
      // The lease lapsed at 130 s; with one attempt allowed, the recovery fails the run at 400 s.
      await storage.runQueue.recover(new Date(fixtureTime(400)), 1);
      const overview = await storage.runs.overview(orgId, PERIOD);
      expect(overview.totals).toEqual({ COMPLETED: 1, FAILED: 1 });
      // 60 s and 300 s.
      expect([overview.p50DurationMs, overview.p95DurationMs]).toEqual([60_000, 300_000]);
    });
  });
}
