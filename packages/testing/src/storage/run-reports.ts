/**
 * Conformance: `runs.setReport` — what a run reported back to GitHub is written whatever the
 * run's status (its outcome comment follows its final status), changes no other member, and is
 * scoped to the org.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '@agent-platform/core';
import { makeRunRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

const report = (overrides: Partial<RunReport> = {}): RunReport => ({
  target: 'acme/app#7',
  reaction: 'added',
  comment_id: null,
  comment_url: null,
  error: null,
  updated_at: '2026-01-02T03:04:05.000Z',
  ...overrides,
});

export function describeRunReports(ctx: SuiteContext): void {
  describe('runs.setReport', () => {
    it('writes the report on a RUNNING run and keeps every other member', async () => {
      const run = makeRunRecord({ status: 'RUNNING', attempt: 1, started_at: new Date().toISOString(), lease_owner: 'wkr_a' });
      await ctx.adapter.runs.insertMany([run]);
      const stored = await ctx.adapter.runs.setReport(run.org_id, run.id, report());
      expect(stored?.report).toEqual(report());
      const read = await ctx.adapter.runs.get(run.org_id, run.id);
      expect(read).toEqual({ ...run, report: report() });
    });

    it('writes it on a final run too, which no transition may change', async () => {
      const run = makeRunRecord({ status: 'COMPLETED', attempt: 1, completed_at: new Date().toISOString() });
      await ctx.adapter.runs.insertMany([run]);
      const later = report({ comment_id: 42, comment_url: 'https://github.com/acme/app/issues/7#issuecomment-42' });
      expect((await ctx.adapter.runs.setReport(run.org_id, run.id, later))?.report).toEqual(later);
      const replaced = report({ comment_id: 42, error: 'GitHub refused the comment (403)' });
      await ctx.adapter.runs.setReport(run.org_id, run.id, replaced);
      const read = await ctx.adapter.runs.get(run.org_id, run.id);
      expect(read?.status).toBe('COMPLETED');
      expect(read?.report).toEqual(replaced);
    });

    it('a transition after it keeps the report', async () => {
      const run = makeRunRecord({ status: 'RUNNING', attempt: 1, started_at: new Date().toISOString() });
      await ctx.adapter.runs.insertMany([run]);
      await ctx.adapter.runs.setReport(run.org_id, run.id, report());
      const done = await ctx.adapter.runs.transition(run.org_id, run.id, { from: ['RUNNING'] }, { status: 'FAILED', error_detail: 'boom' });
      expect(done?.report).toEqual(report());
    });

    it("is null for a missing run and another org's run, writing nothing", async () => {
      const run = makeRunRecord();
      await ctx.adapter.runs.insertMany([run]);
      expect(await ctx.adapter.runs.setReport(uniqueId('org'), run.id, report())).toBeNull();
      expect(await ctx.adapter.runs.setReport(run.org_id, uniqueId('run'), report())).toBeNull();
      expect((await ctx.adapter.runs.get(run.org_id, run.id))?.report).toBeUndefined();
    });
  });
}
