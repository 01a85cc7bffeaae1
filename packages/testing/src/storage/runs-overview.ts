/**
 * Conformance: `runs.overview`, an org's runs created in a period aggregated by the storage —
 * counts per bucket and status, duration percentiles, the queue, the automations failing most.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@agent-platform/core';
import { makeRunRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

const FROM = '2025-03-01T10:00:00.000Z';
const TO = '2025-03-02T01:00:00.000Z';

export function describeRunsOverview(ctx: SuiteContext): void {
  describe('runs.overview', () => {
    /** Runs of three automations in and around the period, and another org's. */
    async function orgWithRuns() {
      const orgId = uniqueId('org');
      const [a, b, c] = [uniqueId('auto-a'), uniqueId('auto-b'), uniqueId('auto-c')];
      const run = (automationId: string, created: string, status: RunRecord['status'], times: Partial<RunRecord> = {}): RunRecord =>
        makeRunRecord({ org_id: orgId, automation_id: automationId, created_at: created, status, ...times });
      const runs = [
        // 2 min, from its start.
        run(a, '2025-03-01T10:15:00.000Z', 'COMPLETED', { started_at: '2025-03-01T10:16:00.000Z', completed_at: '2025-03-01T10:18:00.000Z' }),
        // Never started: 1 min from its creation.
        run(a, '2025-03-01T10:45:00.000Z', 'FAILED', { completed_at: '2025-03-01T10:46:00.000Z' }),
        run(b, '2025-03-01T11:05:00.000Z', 'FAILED', { started_at: '2025-03-01T11:05:00.000Z', completed_at: '2025-03-01T11:05:30.000Z' }),
        run(b, '2025-03-01T11:30:00.000Z', 'PENDING'),
        run(c, '2025-03-02T00:10:00.000Z', 'COMPLETED', { started_at: '2025-03-02T00:10:00.000Z', completed_at: '2025-03-02T00:20:00.000Z' }),
        // Skipped runs never ran: counted, but neither finished nor timed.
        run(c, '2025-03-02T00:20:00.000Z', 'SKIPPED', { completed_at: '2025-03-02T00:20:01.000Z' }),
        run(c, '2025-03-02T00:30:00.000Z', 'RUNNING', { started_at: '2025-03-02T00:30:00.000Z' }),
        // Outside the period: just before `from`, exactly at `to`, and a PENDING run from weeks before.
        run(a, '2025-03-01T09:59:59.999Z', 'FAILED', { completed_at: '2025-03-01T10:00:00.000Z' }),
        run(b, TO, 'FAILED', { completed_at: '2025-03-02T01:00:05.000Z' }),
        run(c, '2025-02-20T08:00:00.000Z', 'PENDING'),
      ];
      // Another org's runs, in the period and queued: never counted.
      const elsewhere = [
        makeRunRecord({ automation_id: a, created_at: '2025-03-01T10:20:00.000Z', status: 'FAILED', completed_at: '2025-03-01T10:21:00.000Z' }),
        makeRunRecord({ automation_id: a, created_at: '2025-01-01T00:00:00.000Z', status: 'PENDING' }),
      ];
      await ctx.adapter.runs.insertMany([...runs.slice(0, 5), elsewhere[0] as RunRecord]);
      await ctx.adapter.runs.insertMany([...runs.slice(5), elsewhere[1] as RunRecord]);
      return { orgId, a, b, c, runs };
    }

    it('counts the runs created in [from, to) per UTC hour and status, times the finished ones, and ranks the failing automations', async () => {
      const { orgId, a, b } = await orgWithRuns();
      expect(await ctx.adapter.runs.overview(orgId, { from: FROM, to: TO, bucket: 'hour' })).toEqual({
        buckets: [
          { start: '2025-03-01T10:00:00.000Z', counts: { COMPLETED: 1, FAILED: 1 } },
          { start: '2025-03-01T11:00:00.000Z', counts: { FAILED: 1, PENDING: 1 } },
          { start: '2025-03-02T00:00:00.000Z', counts: { COMPLETED: 1, SKIPPED: 1, RUNNING: 1 } },
        ],
        totals: { COMPLETED: 2, FAILED: 2, PENDING: 1, SKIPPED: 1, RUNNING: 1 },
        // 30 s, 1 min, 2 min, 10 min: the median by nearest rank is the second, p95 the fourth.
        p50DurationMs: 60_000,
        p95DurationMs: 600_000,
        pending: 2,
        oldestPendingAt: '2025-02-20T08:00:00.000Z',
        // One failure each: the one with fewer finished runs first.
        failing: [
          { automation_id: b, failed: 1, finished: 1 },
          { automation_id: a, failed: 1, finished: 2 },
        ],
      });
    });

    it('buckets by UTC day, the first bucket starting before from', async () => {
      const { orgId } = await orgWithRuns();
      const overview = await ctx.adapter.runs.overview(orgId, { from: FROM, to: TO, bucket: 'day' });
      expect(overview.buckets).toEqual([
        { start: '2025-03-01T00:00:00.000Z', counts: { COMPLETED: 1, FAILED: 2, PENDING: 1 } },
        { start: '2025-03-02T00:00:00.000Z', counts: { COMPLETED: 1, SKIPPED: 1, RUNNING: 1 } },
      ]);
    });

    it('answers empty counts and no durations for a period or an org without runs', async () => {
      const { orgId } = await orgWithRuns();
      const empty = { buckets: [], totals: {}, p50DurationMs: null, p95DurationMs: null, failing: [] };
      expect(await ctx.adapter.runs.overview(orgId, { from: '2024-01-01T00:00:00.000Z', to: '2024-01-02T00:00:00.000Z', bucket: 'hour' })).toEqual({
        ...empty,
        pending: 2,
        oldestPendingAt: '2025-02-20T08:00:00.000Z',
      });
      expect(await ctx.adapter.runs.overview(uniqueId('org'), { from: FROM, to: TO, bucket: 'day' })).toEqual({ ...empty, pending: 0, oldestPendingAt: null });
    });

    it('follows transitions: a run that finishes is timed from its start, one that starts leaves the queue', async () => {
      const { orgId, runs } = await orgWithRuns();
      const queued = runs[3] as RunRecord;
      await ctx.adapter.runs.transition(orgId, queued.id, { from: ['PENDING'] }, { status: 'RUNNING', started_at: '2025-03-01T11:31:00.000Z', attempt: 1 });
      let overview = await ctx.adapter.runs.overview(orgId, { from: FROM, to: TO, bucket: 'hour' });
      expect(overview.pending).toBe(1);
      expect(overview.totals).toEqual({ COMPLETED: 2, FAILED: 2, SKIPPED: 1, RUNNING: 2 });
      await ctx.adapter.runs.transition(orgId, queued.id, { from: ['RUNNING'] }, { status: 'FAILED', completed_at: '2025-03-01T12:31:00.000Z' });
      overview = await ctx.adapter.runs.overview(orgId, { from: FROM, to: TO, bucket: 'hour' });
      // 30 s, 1 min, 2 min, 10 min, 1 h.
      expect([overview.p50DurationMs, overview.p95DurationMs]).toEqual([120_000, 3_600_000]);
      expect(overview.failing[0]).toEqual({ automation_id: queued.automation_id, failed: 2, finished: 2 });
      expect(overview.buckets[1]).toEqual({ start: '2025-03-01T11:00:00.000Z', counts: { FAILED: 2 } });
    });

    it('lists at most 5 failing automations, most failures first, then fewest finished, then by id', async () => {
      const orgId = uniqueId('org');
      const base = uniqueId('auto');
      const records: RunRecord[] = [];
      // Automation n fails n times (1 to 7); automation 0 never fails.
      for (let n = 0; n <= 7; n += 1) {
        for (let i = 0; i < n; i += 1)
          records.push(makeRunRecord({ org_id: orgId, automation_id: `${base}-${n}`, created_at: '2025-03-01T12:00:00.000Z', status: 'FAILED' }));
        records.push(makeRunRecord({ org_id: orgId, automation_id: `${base}-${n}`, created_at: '2025-03-01T12:00:00.000Z', status: 'COMPLETED' }));
      }
      // A tie with automation 3 on failures but with more finished runs: after it.
      records.push(
        ...[1, 2, 3, 4].map((i) =>
          makeRunRecord({ org_id: orgId, automation_id: `${base}-x`, created_at: '2025-03-01T12:00:00.000Z', status: i <= 3 ? 'FAILED' : 'COMPLETED' }),
        ),
        makeRunRecord({ org_id: orgId, automation_id: `${base}-x`, created_at: '2025-03-01T12:00:00.000Z', status: 'COMPLETED' }),
      );
      await ctx.adapter.runs.insertMany(records);
      const { failing } = await ctx.adapter.runs.overview(orgId, { from: FROM, to: TO, bucket: 'day' });
      expect(failing).toEqual([
        { automation_id: `${base}-7`, failed: 7, finished: 8 },
        { automation_id: `${base}-6`, failed: 6, finished: 7 },
        { automation_id: `${base}-5`, failed: 5, finished: 6 },
        { automation_id: `${base}-4`, failed: 4, finished: 5 },
        { automation_id: `${base}-3`, failed: 3, finished: 4 },
      ]);
      // Durations: none of these runs has completed_at, so none is timed.
      expect((await ctx.adapter.runs.overview(orgId, { from: FROM, to: TO, bucket: 'day' })).p50DurationMs).toBeNull();
    });
  });
}
