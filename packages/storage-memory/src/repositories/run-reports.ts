/**
 * Run reports: what a run reported back to GitHub, one row per run beside the run itself. The
 * reports still owing their outcome comment are indexed on their own, so the sweep for them reads
 * only those — and keeps the ones whose run has ended.
 * @module
 */
import { FINAL_RUN_STATUSES } from '@agent-platform/core';
import type { RunRecord, RunReport, RunReportsRepository } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import { ALL, type Database, type RunReportRow } from '../database/database.js';
import type { TableView } from '../table/index.js';

/** The org's report of the run, as stored; another org's reads like a missing one. */
function ownedReport(reports: TableView<RunReportRow>, orgId: string, runId: string): RunReport | undefined {
  const row = reports.get(runId);
  return row !== undefined && row.org_id === orgId ? row.report : undefined;
}

export function runReportsRepository(db: Database, access: Access): RunReportsRepository {
  return {
    async get(orgId, runId) {
      const report = ownedReport(readView(access, db.runReports), orgId, runId);
      return report === undefined ? null : cloneJson(report);
    },
    async getMany(orgId, runIds) {
      const reports = readView(access, db.runReports);
      const found = new Map<string, RunReport>();
      for (const runId of runIds) {
        const report = ownedReport(reports, orgId, runId);
        if (report !== undefined && !found.has(runId)) found.set(runId, cloneJson(report));
      }
      return found;
    },
    async put(orgId, runId, report) {
      // Copied before queueing, so changes the caller makes while the write waits do not land.
      const copy = cloneJson(report);
      return access.write(() => {
        const run = db.runs.live.get(runId);
        if (run === undefined || run.org_id !== orgId) return false;
        db.runReports.put({ org_id: orgId, run_id: runId, run_created_at: run.created_at, report: copy });
        return true;
      });
    },
    async listDue(limit) {
      const due: Array<{ run: RunRecord; report: RunReport }> = [];
      if (limit <= 0) return due;
      const runs = readView(access, db.runs);
      const owed = readView(access, db.runReports).ordered(db.runReportsDue, ALL);
      // Owed reports of runs still running (an attempt under way owes its comment too) are
      // passed over: they are as few as the runs running. Read a page at a time, as a
      // transaction's view of a group has no cheap positional reads.
      for (let offset = 0; due.length < limit && offset < owed.size; ) {
        const page = owed.page(offset, limit - due.length);
        if (page.length === 0) break;
        offset += page.length;
        for (const row of page) {
          const run = runs.get(row.run_id);
          if (run !== undefined && FINAL_RUN_STATUSES.includes(run.status)) due.push({ run: cloneJson(run), report: cloneJson(row.report) });
        }
      }
      return due;
    },
  };
}
