/**
 * Conformance: `runReports` — what a run reported back to GitHub, the answer-back feature's own
 * record beside the run: written (replaced) whatever the run's status, since its outcome comment
 * follows its final status; read one at a time or for a page of runs; scoped to the run's org;
 * never written for a run the org does not have; and part of a transaction like any other
 * write. Its sweep for owed comments is `run-reports-due.ts`.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { makeRunRecord, makeRunReport, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { describeRunReportsDue } from './run-reports-due.js';

export function describeRunReports(ctx: SuiteContext): void {
  describe('runReports', () => {
    it('reads back the report written for a RUNNING run, and leaves the run as it was', async () => {
      const run = makeRunRecord({ status: 'RUNNING', attempt: 1, started_at: new Date().toISOString(), lease_owner: 'wkr_a' });
      await ctx.adapter.runs.insertMany([run]);
      expect(await ctx.adapter.runReports.get(run.org_id, run.id)).toBeNull();
      expect(await ctx.adapter.runReports.put(run.org_id, run.id, makeRunReport({ comment_due: true }))).toBe(true);
      expect(await ctx.adapter.runReports.get(run.org_id, run.id)).toEqual(makeRunReport({ comment_due: true }));
      expect(await ctx.adapter.runs.get(run.org_id, run.id)).toEqual(run);
    });

    it('replaces the report, on a final run too, which no transition may change', async () => {
      const run = makeRunRecord({ status: 'COMPLETED', attempt: 1, completed_at: new Date().toISOString() });
      await ctx.adapter.runs.insertMany([run]);
      const posted = makeRunReport({ comment_id: 42, comment_url: 'https://github.com/acme/app/issues/7#issuecomment-42' });
      expect(await ctx.adapter.runReports.put(run.org_id, run.id, posted)).toBe(true);
      expect(await ctx.adapter.runReports.get(run.org_id, run.id)).toEqual(posted);
      const refused = makeRunReport({ comment_id: 42, error: 'GitHub refused the comment (403)' });
      expect(await ctx.adapter.runReports.put(run.org_id, run.id, refused)).toBe(true);
      expect(await ctx.adapter.runReports.get(run.org_id, run.id)).toEqual(refused);
      expect(await ctx.adapter.runs.get(run.org_id, run.id)).toEqual(run);
    });

    it('keeps the report through a transition of its run', async () => {
      const run = makeRunRecord({ status: 'RUNNING', attempt: 1, started_at: new Date().toISOString() });
      await ctx.adapter.runs.insertMany([run]);
      await ctx.adapter.runReports.put(run.org_id, run.id, makeRunReport());
      const done = await ctx.adapter.runs.transition(run.org_id, run.id, { from: ['RUNNING'] }, { status: 'FAILED', error_detail: 'boom' });
      expect(done?.status).toBe('FAILED');
      expect(await ctx.adapter.runReports.get(run.org_id, run.id)).toEqual(makeRunReport());
    });

    it('reads the reports of a page of runs by run id, leaving out the runs without one', async () => {
      const orgId = uniqueId('org');
      const [first, second, unreported] = [makeRunRecord({ org_id: orgId }), makeRunRecord({ org_id: orgId }), makeRunRecord({ org_id: orgId })];
      await ctx.adapter.runs.insertMany([first, second, unreported]);
      await ctx.adapter.runReports.put(orgId, first.id, makeRunReport({ target: 'acme/app#1' }));
      await ctx.adapter.runReports.put(orgId, second.id, makeRunReport({ target: 'acme/app#2' }));
      const reports = await ctx.adapter.runReports.getMany(orgId, [second.id, unreported.id, uniqueId('run'), first.id]);
      expect(reports).toEqual(
        new Map([
          [second.id, makeRunReport({ target: 'acme/app#2' })],
          [first.id, makeRunReport({ target: 'acme/app#1' })],
        ]),
      );
      expect(await ctx.adapter.runReports.getMany(orgId, [first.id, first.id])).toEqual(new Map([[first.id, makeRunReport({ target: 'acme/app#1' })]]));
      expect(await ctx.adapter.runReports.getMany(orgId, [])).toEqual(new Map());
    });

    it("answers another org's run like a missing one, and writes nothing for it", async () => {
      const run = makeRunRecord();
      const other = uniqueId('org');
      await ctx.adapter.runs.insertMany([run]);
      expect(await ctx.adapter.runReports.put(other, run.id, makeRunReport())).toBe(false);
      expect(await ctx.adapter.runReports.get(run.org_id, run.id)).toBeNull();
      await ctx.adapter.runReports.put(run.org_id, run.id, makeRunReport());
      expect(await ctx.adapter.runReports.get(other, run.id)).toBeNull();
      expect(await ctx.adapter.runReports.getMany(other, [run.id])).toEqual(new Map());
      expect(await ctx.adapter.runReports.put(other, run.id, makeRunReport({ error: 'not theirs' }))).toBe(false);
      expect(await ctx.adapter.runReports.get(run.org_id, run.id)).toEqual(makeRunReport());
    });

    it('is false for an unknown run, writing nothing, and null when read', async () => {
      const runId = uniqueId('run');
      const orgId = uniqueId('org');
      expect(await ctx.adapter.runReports.put(orgId, runId, makeRunReport())).toBe(false);
      expect(await ctx.adapter.runReports.get(orgId, runId)).toBeNull();
      expect(await ctx.adapter.runReports.getMany(orgId, [runId])).toEqual(new Map());
    });

    it('keeps no link to the reports it is given or returns', async () => {
      const run = makeRunRecord();
      await ctx.adapter.runs.insertMany([run]);
      const written = makeRunReport();
      await ctx.adapter.runReports.put(run.org_id, run.id, written);
      written.error = 'changed after the write';
      const read = await ctx.adapter.runReports.get(run.org_id, run.id);
      expect(read).toEqual(makeRunReport());
      if (read) read.target = 'changed/after#1';
      const listed = (await ctx.adapter.runReports.getMany(run.org_id, [run.id])).get(run.id);
      expect(listed).toEqual(makeRunReport());
      if (listed) listed.reaction = 'failed';
      expect(await ctx.adapter.runReports.get(run.org_id, run.id)).toEqual(makeRunReport());
    });

    it('writes inside a transaction, seen by it at once and by others on commit; none on rollback', async () => {
      const [kept, dropped] = [makeRunRecord(), makeRunRecord()];
      await ctx.adapter.runs.insertMany([kept, dropped]);
      await ctx.adapter.transaction(async (tx) => {
        expect(await tx.runReports.put(kept.org_id, kept.id, makeRunReport())).toBe(true);
        expect(await tx.runReports.get(kept.org_id, kept.id)).toEqual(makeRunReport());
      });
      expect(await ctx.adapter.runReports.get(kept.org_id, kept.id)).toEqual(makeRunReport());
      await expect(
        ctx.adapter.transaction(async (tx) => {
          await tx.runReports.put(dropped.org_id, dropped.id, makeRunReport());
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await ctx.adapter.runReports.get(dropped.org_id, dropped.id)).toBeNull();
    });

    it('writes the report of a run inserted earlier in the same transaction', async () => {
      const run = makeRunRecord();
      await ctx.adapter.transaction(async (tx) => {
        await tx.runs.insertMany([run]);
        expect(await tx.runReports.put(run.org_id, run.id, makeRunReport())).toBe(true);
      });
      expect(await ctx.adapter.runReports.get(run.org_id, run.id)).toEqual(makeRunReport());
    });
  });

  describeRunReportsDue(ctx);
}
