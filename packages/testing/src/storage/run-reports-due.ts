/**
 * Conformance: `runReports.listDue` — the final runs whose outcome comment is still owed
 * (`comment_due`), each with its report, across orgs, oldest run first. What the sweep of a dead
 * worker's comments reads every minute: a run still running, a report paid or one written before
 * the flag existed is never listed.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { RunRecord, RunReport } from '@agent-platform/core';
import { fixtureTime, makeRunRecord, makeRunReport, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

export function describeRunReportsDue(ctx: SuiteContext): void {
  describe('runReports.listDue', () => {
    /** The ids among `ids` listed due, in the port's order (other tests' reports may share the storage). */
    const dueAmong = async (ids: readonly string[]) => (await ctx.adapter.runReports.listDue(1_000)).map(({ run }) => run.id).filter((id) => ids.includes(id));

    /** Inserts the runs, then writes each one's report (none for `null`). */
    const reported = async (entries: ReadonlyArray<readonly [RunRecord, RunReport | null]>) => {
      await ctx.adapter.runs.insertMany(entries.map(([run]) => run));
      for (const [run, report] of entries) if (report) await ctx.adapter.runReports.put(run.org_id, run.id, report);
    };

    it('lists the final runs that owe their comment, across orgs, oldest first; none running, paid or unreported', async () => {
      const due = makeRunReport({ comment_due: true });
      const newer = makeRunRecord({ status: 'FAILED', created_at: fixtureTime(30) });
      const older = makeRunRecord({ status: 'COMPLETED', created_at: fixtureTime(10) });
      const cancelled = makeRunRecord({ status: 'CANCELLED', created_at: fixtureTime(20) });
      const skipped = makeRunRecord({ status: 'SKIPPED', created_at: fixtureTime(25) });
      const running = makeRunRecord({ status: 'RUNNING', created_at: fixtureTime(5) });
      const pending = makeRunRecord({ status: 'PENDING', created_at: fixtureTime(5) });
      const paid = makeRunRecord({ status: 'COMPLETED', created_at: fixtureTime(5) });
      const unreported = makeRunRecord({ status: 'COMPLETED', created_at: fixtureTime(5) });
      const legacy = makeRunRecord({ status: 'COMPLETED', created_at: fixtureTime(5) });
      await reported([
        [newer, due],
        [older, due],
        [cancelled, due],
        [skipped, due],
        [running, due],
        [pending, due],
        [paid, makeRunReport({ comment_due: false, comment_id: 9 })],
        [unreported, null],
        [legacy, makeRunReport()],
      ]);
      const ids = [newer, older, cancelled, skipped, running, pending, paid, unreported, legacy].map((run) => run.id);
      expect(await dueAmong(ids)).toEqual([older.id, cancelled.id, skipped.id, newer.id]);
      const listed = (await ctx.adapter.runReports.listDue(1_000)).find(({ run }) => run.id === older.id);
      expect(listed).toEqual({ run: older, report: due });
    });

    it('breaks ties between runs created at once by run id', async () => {
      const base = uniqueId('run');
      const [second, first] = [makeRunRecord({ id: `${base}_b`, status: 'FAILED' }), makeRunRecord({ id: `${base}_a`, status: 'FAILED' })];
      await reported([
        [second, makeRunReport({ comment_due: true })],
        [first, makeRunReport({ comment_due: true })],
      ]);
      expect(await dueAmong([first.id, second.id])).toEqual([first.id, second.id]);
    });

    it('lists at most `limit`', async () => {
      await reported([
        [makeRunRecord({ status: 'COMPLETED' }), makeRunReport({ comment_due: true })],
        [makeRunRecord({ status: 'FAILED' }), makeRunReport({ comment_due: true })],
      ]);
      expect(await ctx.adapter.runReports.listDue(1)).toHaveLength(1);
      expect(await ctx.adapter.runReports.listDue(0)).toEqual([]);
    });

    it('follows the run and its report: listed once the run ends owing, no longer once paid', async () => {
      const run = makeRunRecord({ status: 'RUNNING', attempt: 1, started_at: fixtureTime(1), lease_owner: 'wkr_a' });
      await reported([[run, makeRunReport({ comment_due: true })]]);
      expect(await dueAmong([run.id])).toEqual([]);
      const ended = await ctx.adapter.runs.transition(run.org_id, run.id, { from: ['RUNNING'] }, { status: 'COMPLETED', completed_at: fixtureTime(2) });
      const listed = (await ctx.adapter.runReports.listDue(1_000)).filter((candidate) => candidate.run.id === run.id);
      expect(listed).toEqual([{ run: ended, report: makeRunReport({ comment_due: true }) }]);
      await ctx.adapter.runReports.put(run.org_id, run.id, makeRunReport({ comment_due: false, comment_id: 42 }));
      expect(await dueAmong([run.id])).toEqual([]);
    });

    it('sees inside a transaction what the transaction wrote', async () => {
      const run = makeRunRecord({ status: 'COMPLETED' });
      await ctx.adapter.runs.insertMany([run]);
      await ctx.adapter.transaction(async (tx) => {
        await tx.runReports.put(run.org_id, run.id, makeRunReport({ comment_due: true }));
        expect((await tx.runReports.listDue(1_000)).some((due) => due.run.id === run.id)).toBe(true);
        await tx.runReports.put(run.org_id, run.id, makeRunReport({ comment_due: false }));
        expect((await tx.runReports.listDue(1_000)).some((due) => due.run.id === run.id)).toBe(false);
      });
    });
  });
}
