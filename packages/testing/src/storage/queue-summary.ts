/**
 * Conformance: what the metrics read at each scrape — `runs.queueSummary` (PENDING runs, the
 * oldest one's age, RUNNING runs per org) and `sandboxes.countByStatus`. Both count over every
 * org, so over a shared backend other tests' rows are counted too: the tests compare before and
 * after their own writes, and read their own org's figures.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { SandboxStatus } from '@agent-platform/core';
import { makeRunRecord, makeSandboxRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

export function describeQueueSummary(ctx: SuiteContext): void {
  describe('runs.queueSummary and sandboxes.countByStatus', () => {
    it('counts PENDING runs, and RUNNING runs per org, following transitions', async () => {
      const orgId = uniqueId('org');
      const before = await ctx.adapter.runs.queueSummary();
      expect(before.runningByOrg[orgId]).toBeUndefined();
      const pending = [makeRunRecord({ org_id: orgId }), makeRunRecord({ org_id: orgId })];
      const running = makeRunRecord({ org_id: orgId, status: 'RUNNING', attempt: 1, started_at: new Date().toISOString() });
      const done = makeRunRecord({ org_id: orgId, status: 'COMPLETED', completed_at: new Date().toISOString() });
      await ctx.adapter.runs.insertMany([...pending, running, done]);
      const after = await ctx.adapter.runs.queueSummary();
      expect(after.pending - before.pending).toBe(2);
      expect(after.runningByOrg[orgId]).toBe(1);
      const first = pending[0] as (typeof pending)[number];
      await ctx.adapter.runs.transition(orgId, first.id, { from: ['PENDING'] }, { status: 'RUNNING', started_at: new Date().toISOString() });
      const moved = await ctx.adapter.runs.queueSummary();
      expect(moved.pending - before.pending).toBe(1);
      expect(moved.runningByOrg[orgId]).toBe(2);
    });

    it('names the oldest PENDING run: no later than the oldest of its own', async () => {
      const old = makeRunRecord({ created_at: '1990-01-02T03:04:05.000Z' });
      await ctx.adapter.runs.insertMany([old]);
      const summary = await ctx.adapter.runs.queueSummary();
      expect(summary.oldestPendingAt).not.toBeNull();
      expect(Date.parse(summary.oldestPendingAt as string)).toBeLessThanOrEqual(Date.parse(old.created_at));
      await ctx.adapter.runs.transition(old.org_id, old.id, { from: ['PENDING'] }, { status: 'CANCELLED', completed_at: new Date().toISOString() });
      const later = await ctx.adapter.runs.queueSummary();
      if (later.oldestPendingAt !== null) expect(later.oldestPendingAt).not.toBe(old.created_at);
    });

    it('counts sandboxes by status, following updates and deletes', async () => {
      const count = async (status: SandboxStatus) => (await ctx.adapter.sandboxes.countByStatus())[status] ?? 0;
      const [running, paused] = [await count('RUNNING'), await count('PAUSED')];
      const one = makeSandboxRecord({ status: 'RUNNING' });
      const two = makeSandboxRecord({ status: 'RUNNING' });
      await ctx.adapter.sandboxes.insert(one);
      await ctx.adapter.sandboxes.insert(two);
      expect((await count('RUNNING')) - running).toBe(2);
      await ctx.adapter.sandboxes.update({ ...one, status: 'PAUSED' });
      expect((await count('RUNNING')) - running).toBe(1);
      expect((await count('PAUSED')) - paused).toBe(1);
      await ctx.adapter.sandboxes.delete(two.id);
      expect((await count('RUNNING')) - running).toBe(0);
      const counts = await ctx.adapter.sandboxes.countByStatus();
      for (const value of Object.values(counts)) expect(value).toBeGreaterThan(0);
    });
  });
}
