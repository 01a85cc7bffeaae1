/**
 * Conformance: `runs.setReport` — what a run reported back to GitHub is written whatever the
 * run's status (its outcome comment follows its final status), changes no other member, and is
 * scoped to the org — and `runs.listReportsDue`: the final runs whose outcome comment is still
 * owed (`comment_due`), across orgs, oldest first.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '@agent-platform/core';
import { fixtureTime, makeRunRecord, uniqueId } from '../fixtures/records.js';
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

  describe('runs.listReportsDue', () => {
    /** The ids among `ids` the port lists, in its order (other tests' runs may share the storage). */
    const dueAmong = async (ids: readonly string[]) => (await ctx.adapter.runs.listReportsDue(1_000)).map((run) => run.id).filter((id) => ids.includes(id));

    it('lists the final runs that owe their comment, across orgs, oldest first; none that is running or owes nothing', async () => {
      const due = report({ comment_due: true });
      const newer = makeRunRecord({ status: 'FAILED', created_at: fixtureTime(30), report: due });
      const older = makeRunRecord({ status: 'COMPLETED', created_at: fixtureTime(10), report: due });
      const cancelled = makeRunRecord({ status: 'CANCELLED', created_at: fixtureTime(20), report: due });
      const running = makeRunRecord({ status: 'RUNNING', created_at: fixtureTime(5), report: due });
      const paid = makeRunRecord({ status: 'COMPLETED', created_at: fixtureTime(5), report: report({ comment_due: false, comment_id: 9 }) });
      const unreported = makeRunRecord({ status: 'COMPLETED', created_at: fixtureTime(5) });
      const legacy = makeRunRecord({ status: 'COMPLETED', created_at: fixtureTime(5), report: report() });
      const runs = [newer, older, cancelled, running, paid, unreported, legacy];
      await ctx.adapter.runs.insertMany(runs);
      expect(await dueAmong(runs.map((run) => run.id))).toEqual([older.id, cancelled.id, newer.id]);
      expect((await ctx.adapter.runs.listReportsDue(1)).length).toBe(1);
      expect(await ctx.adapter.runs.listReportsDue(0)).toEqual([]);
    });

    it('follows the run: listed once it ends owing, no longer once its report is written paid', async () => {
      const run = makeRunRecord({ status: 'RUNNING', attempt: 1, started_at: fixtureTime(1), lease_owner: 'wkr_a' });
      await ctx.adapter.runs.insertMany([run]);
      await ctx.adapter.runs.setReport(run.org_id, run.id, report({ comment_due: true }));
      expect(await dueAmong([run.id])).toEqual([]);
      const ended = await ctx.adapter.runs.transition(run.org_id, run.id, { from: ['RUNNING'] }, { status: 'COMPLETED', completed_at: fixtureTime(2) });
      expect(ended?.report?.comment_due).toBe(true);
      const [listed] = (await ctx.adapter.runs.listReportsDue(1_000)).filter((candidate) => candidate.id === run.id);
      expect(listed).toEqual(ended);
      await ctx.adapter.runs.setReport(run.org_id, run.id, report({ comment_due: false, comment_id: 42 }));
      expect(await dueAmong([run.id])).toEqual([]);
    });
  });
}
