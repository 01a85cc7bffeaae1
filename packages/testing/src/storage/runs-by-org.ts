/**
 * Conformance: `runs.listByOrg`, the org's runs across its automations, newest first, narrowed by
 * status, automation and creation time, continued after a cursor.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@agent-platform/core';
import { fixtureTime, makeRunRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

export function describeRunsByOrg(ctx: SuiteContext): void {
  describe('runs.listByOrg', () => {
    /** Five runs of two automations in one org (ties at 20 s broken by id), and one elsewhere. */
    async function orgWithRuns() {
      const orgId = uniqueId('org');
      const [first, second] = [uniqueId('auto'), uniqueId('auto')];
      const base = uniqueId('run');
      const run = (suffix: string, automationId: string, seconds: number, status: RunRecord['status']): RunRecord =>
        makeRunRecord({ org_id: orgId, automation_id: automationId, id: `${base}-${suffix}`, created_at: fixtureTime(seconds), status });
      const a = run('a', first, 10, 'COMPLETED');
      const b = run('b', second, 20, 'FAILED');
      const c = run('c', first, 20, 'FAILED');
      const d = run('d', second, 30, 'PENDING');
      const e = run('e', first, 40, 'COMPLETED');
      // The same automation id in another org, in the middle of the times: never listed.
      const elsewhere = makeRunRecord({ automation_id: first, created_at: fixtureTime(25), status: 'FAILED' });
      await ctx.adapter.runs.insertMany([c, elsewhere, a, e]);
      await ctx.adapter.runs.insertMany([d, b]);
      return { orgId, first, second, runs: { a, b, c, d, e } };
    }

    it("lists only the org's runs, every automation's, newest first then by id descending, at most limit", async () => {
      const { orgId, runs } = await orgWithRuns();
      const { a, b, c, d, e } = runs;
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10 })).toEqual([e, d, c, b, a]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 2 })).toEqual([e, d]);
      expect(await ctx.adapter.runs.listByOrg(uniqueId('org'), { limit: 10 })).toEqual([]);
    });

    it('narrows by one status or several, by automation, and by since (created at or after)', async () => {
      const { orgId, first, second, runs } = await orgWithRuns();
      const { a, b, c, d, e } = runs;
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, statuses: ['FAILED'] })).toEqual([c, b]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, statuses: ['PENDING', 'COMPLETED'] })).toEqual([e, d, a]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, automationId: first })).toEqual([e, c, a]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, automationId: second, statuses: ['FAILED'] })).toEqual([b]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, since: fixtureTime(20) })).toEqual([e, d, c, b]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, since: fixtureTime(20), statuses: ['FAILED'], automationId: first })).toEqual([c]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, since: fixtureTime(41) })).toEqual([]);
    });

    it('continues strictly after the cursor: no run repeated or skipped, ties included, a run added meanwhile not shifting the rest', async () => {
      const { orgId, first, runs } = await orgWithRuns();
      const { a, b, c, d, e } = runs;
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, before: { createdAt: d.created_at, id: d.id } })).toEqual([c, b, a]);
      // Between the two runs at 20 s: b (the lower id) is after c.
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, before: { createdAt: c.created_at, id: c.id } })).toEqual([b, a]);
      const newer = makeRunRecord({ org_id: orgId, automation_id: first, created_at: fixtureTime(50) });
      await ctx.adapter.runs.insertMany([newer]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 2, before: { createdAt: e.created_at, id: e.id } })).toEqual([d, c]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, statuses: ['FAILED'], before: { createdAt: c.created_at, id: c.id } })).toEqual([b]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, automationId: first, before: { createdAt: e.created_at, id: e.id } })).toEqual([c, a]);
    });

    it('compares created_at as instants, and follows status changes made by transition', async () => {
      const orgId = uniqueId('org');
      const whole = makeRunRecord({ org_id: orgId, created_at: '2025-01-01T00:00:01Z', status: 'PENDING' });
      const half = makeRunRecord({ org_id: orgId, created_at: '2025-01-01T00:00:01.500Z', status: 'PENDING' });
      await ctx.adapter.runs.insertMany([whole, half]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10 })).toEqual([half, whole]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, since: '2025-01-01T00:00:01.200Z' })).toEqual([half]);
      const failed = await ctx.adapter.runs.transition(orgId, whole.id, { from: ['PENDING'] }, { status: 'FAILED', error_detail: 'broke' });
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, statuses: ['FAILED'] })).toEqual([failed]);
      expect(await ctx.adapter.runs.listByOrg(orgId, { limit: 10, statuses: ['PENDING'] })).toEqual([half]);
    });
  });
}
