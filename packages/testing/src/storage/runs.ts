/**
 * Conformance: `runs` repository. `insertMany` is all or nothing; lookups are scoped by org,
 * except `listByStatus`, which lists across orgs. Flow control's reads: `listLive` (an
 * automation's live runs of one concurrency key) and `countCreatedSince`.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { RunRecord, RunStatus, RunsRepository } from '@agent-platform/core';
import { fixtureTime, makeRunRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

/**
 * `listByStatus` lists every org's runs, so over a shared backend its tests see other tests'
 * runs too. They create their runs this far in the past, mirrored on the clock: each process
 * starts older than every earlier one, so the leftovers of earlier runs against a persistent
 * backend sort after this process's runs and never crowd them out of an oldest-first page.
 */
const PAST = Date.UTC(2000, 0, 1) - (Date.now() - Date.UTC(2025, 0, 1));

/** A creation time `ms` milliseconds after {@link PAST}. */
function pastTime(ms: number): string {
  return new Date(PAST + ms).toISOString();
}

/** Room for this process's own leftovers ahead of a test's runs. */
const WIDE = 100;

/** The runs of `list` that are among `records`, in the order listed. */
function mine(list: readonly RunRecord[], records: readonly RunRecord[]): RunRecord[] {
  const ids = new Set(records.map((record) => record.id));
  return list.filter((record) => ids.has(record.id));
}

/** Asserts that every run of `list` is in `status` and that the list is oldest first, then by id. */
function expectListedInStatus(list: readonly RunRecord[], status: RunStatus): void {
  for (const record of list) expect(record.status).toBe(status);
  for (let i = 1; i < list.length; i += 1) {
    const before = list[i - 1] as RunRecord;
    const after = list[i] as RunRecord;
    const age = Date.parse(before.created_at) - Date.parse(after.created_at);
    expect(age < 0 || (age === 0 && before.id < after.id), `${before.id} listed before ${after.id}`).toBe(true);
  }
}

export function describeRuns(ctx: SuiteContext): void {
  describe('runs', () => {
    it('get returns null for an unknown run, and an automation without runs lists none', async () => {
      const orgId = uniqueId('org');
      expect(await ctx.adapter.runs.get(orgId, uniqueId('run'))).toBeNull();
      expect(await ctx.adapter.runs.listByAutomation(orgId, uniqueId('auto'), { limit: 10, offset: 0 })).toEqual({
        items: [],
        total: 0,
      });
    });

    it('insertMany then get returns each record', async () => {
      const orgId = uniqueId('org');
      const event = makeRunRecord({ org_id: orgId });
      const manual = makeRunRecord({
        org_id: orgId,
        delivery_id: null,
        trigger: 'manual',
        event_key: null,
        created_by: uniqueId('user'),
        dispatch_payload_json: JSON.stringify({ ref: 'main', nested: { list: [1, 2] } }),
      });
      const finished = makeRunRecord({
        org_id: orgId,
        status: 'FAILED',
        attempt: 2,
        conversation_id: 'conv-1',
        sandbox_id: 'sbx-1',
        error_detail: 'timed out',
        started_at: fixtureTime(1),
        completed_at: fixtureTime(2),
      });
      await ctx.adapter.runs.insertMany([event, manual, finished]);
      for (const record of [event, manual, finished]) {
        expect(await ctx.adapter.runs.get(orgId, record.id)).toEqual(record);
      }
    });

    it('insertMany of no runs resolves', async () => {
      await expect(ctx.adapter.runs.insertMany([])).resolves.toBeUndefined();
    });

    it("get returns null for another org's run", async () => {
      const record = makeRunRecord();
      await ctx.adapter.runs.insertMany([record]);
      expect(await ctx.adapter.runs.get(uniqueId('org'), record.id)).toBeNull();
    });

    it('insertMany with an existing id throws StorageConflictError and inserts none of the runs', async () => {
      const existing = makeRunRecord();
      await ctx.adapter.runs.insertMany([existing]);
      const automationId = uniqueId('auto');
      const before = makeRunRecord({ org_id: existing.org_id, automation_id: automationId });
      const after = makeRunRecord({ org_id: existing.org_id, automation_id: automationId });
      const clash = makeRunRecord({ id: existing.id, org_id: existing.org_id, status: 'RUNNING' });
      await expect(ctx.adapter.runs.insertMany([before, clash, after])).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.runs.get(existing.org_id, existing.id)).toEqual(existing);
      expect(await ctx.adapter.runs.get(existing.org_id, before.id)).toBeNull();
      expect(await ctx.adapter.runs.get(existing.org_id, after.id)).toBeNull();
      expect(await ctx.adapter.runs.listByAutomation(existing.org_id, automationId, { limit: 10, offset: 0 })).toEqual({
        items: [],
        total: 0,
      });
    });

    it('insertMany with an id repeated in the batch throws StorageConflictError and inserts none', async () => {
      const first = makeRunRecord();
      const other = makeRunRecord({ org_id: first.org_id });
      const repeat = makeRunRecord({ id: first.id, org_id: first.org_id });
      await expect(ctx.adapter.runs.insertMany([first, other, repeat])).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.runs.get(first.org_id, first.id)).toBeNull();
      expect(await ctx.adapter.runs.get(first.org_id, other.id)).toBeNull();
    });

    it("listByAutomation returns only that automation's runs in the org, newest first, then by id descending", async () => {
      const orgId = uniqueId('org');
      const automationId = uniqueId('auto');
      const base = uniqueId('run');
      const mine = (suffix: string, seconds: number): RunRecord =>
        makeRunRecord({ org_id: orgId, automation_id: automationId, id: `${base}-${suffix}`, created_at: fixtureTime(seconds) });
      const early = mine('a', 10);
      const tieB = mine('b', 20);
      const tieC = mine('c', 20);
      const late = mine('d', 30);
      const otherAutomation = makeRunRecord({ org_id: orgId, created_at: fixtureTime(25) });
      // The same automation id in another org is another org's business.
      const otherOrg = makeRunRecord({ automation_id: automationId, created_at: fixtureTime(25) });
      await ctx.adapter.runs.insertMany([tieB, otherOrg, late]);
      await ctx.adapter.runs.insertMany([otherAutomation, early, tieC]);
      expect(await ctx.adapter.runs.listByAutomation(orgId, automationId, { limit: 10, offset: 0 })).toEqual({
        items: [late, tieC, tieB, early],
        total: 4,
      });
      expect(await ctx.adapter.runs.listByAutomation(otherOrg.org_id, automationId, { limit: 10, offset: 0 })).toEqual({
        items: [otherOrg],
        total: 1,
      });
    });

    it('listByAutomation compares created_at as instants, not as text', async () => {
      const orgId = uniqueId('org');
      const automationId = uniqueId('auto');
      const whole = makeRunRecord({ org_id: orgId, automation_id: automationId, created_at: '2025-01-01T00:00:01Z' });
      const half = makeRunRecord({ org_id: orgId, automation_id: automationId, created_at: '2025-01-01T00:00:01.500Z' });
      await ctx.adapter.runs.insertMany([whole, half]);
      const { items } = await ctx.adapter.runs.listByAutomation(orgId, automationId, { limit: 10, offset: 0 });
      expect(items).toEqual([half, whole]);
    });

    it('listByAutomation pages with limit and offset while total counts every run', async () => {
      const orgId = uniqueId('org');
      const automationId = uniqueId('auto');
      const records = [0, 1, 2, 3, 4].map((n) => makeRunRecord({ org_id: orgId, automation_id: automationId, created_at: fixtureTime(n) }));
      await ctx.adapter.runs.insertMany([...records].reverse());
      const newestFirst = [...records].reverse();
      const list = (limit: number, offset: number) => ctx.adapter.runs.listByAutomation(orgId, automationId, { limit, offset });
      expect(await list(2, 0)).toEqual({ items: newestFirst.slice(0, 2), total: 5 });
      expect(await list(2, 2)).toEqual({ items: newestFirst.slice(2, 4), total: 5 });
      expect(await list(2, 4)).toEqual({ items: newestFirst.slice(4), total: 5 });
      expect(await list(10, 5)).toEqual({ items: [], total: 5 });
      expect(await list(1, 100)).toEqual({ items: [], total: 5 });
    });

    describe('listLive', () => {
      it("returns the automation's PENDING and RUNNING runs with that key, oldest first then by id", async () => {
        const scope = { org_id: uniqueId('org'), automation_id: uniqueId('auto') };
        const base = uniqueId('run');
        const keyed = (suffix: string, seconds: number, overrides: Partial<RunRecord> = {}): RunRecord =>
          makeRunRecord({ ...scope, id: `${base}-${suffix}`, concurrency_key: 'pr-7', created_at: fixtureTime(seconds), ...overrides });
        const running = keyed('d', 10, { status: 'RUNNING', attempt: 1, started_at: fixtureTime(11) });
        const tieB = keyed('b', 20);
        const tieC = keyed('c', 20, { held_reason: 'queued behind another run of pr-7' });
        const finished = (['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'] as const).map((status, n) => keyed(`f${n}`, 5, { status }));
        const otherKey = keyed('e', 15, { concurrency_key: 'pr-8' });
        const otherAutomation = makeRunRecord({ org_id: scope.org_id, concurrency_key: 'pr-7', created_at: fixtureTime(12) });
        const otherOrg = makeRunRecord({ automation_id: scope.automation_id, concurrency_key: 'pr-7', created_at: fixtureTime(12) });
        await ctx.adapter.runs.insertMany([tieC, otherKey, ...finished, otherOrg]);
        await ctx.adapter.runs.insertMany([tieB, otherAutomation, running]);
        expect(await ctx.adapter.runs.listLive(scope.org_id, scope.automation_id, 'pr-7')).toEqual([running, tieB, tieC]);
        expect(await ctx.adapter.runs.listLive(scope.org_id, scope.automation_id, 'pr-8')).toEqual([otherKey]);
        expect(await ctx.adapter.runs.listLive(scope.org_id, scope.automation_id, 'PR-7')).toEqual([]);
        expect(await ctx.adapter.runs.listLive(scope.org_id, scope.automation_id, null)).toEqual([]);
        expect(await ctx.adapter.runs.listLive(otherOrg.org_id, scope.automation_id, 'pr-7')).toEqual([otherOrg]);
      });

      it('null lists the runs without a key, whether null or absent, and "" is a key of its own', async () => {
        const scope = { org_id: uniqueId('org'), automation_id: uniqueId('auto') };
        const absent = makeRunRecord({ ...scope, created_at: fixtureTime(1) });
        const nulled = makeRunRecord({ ...scope, concurrency_key: null, created_at: fixtureTime(2) });
        const empty = makeRunRecord({ ...scope, concurrency_key: '', created_at: fixtureTime(3) });
        const keyed = makeRunRecord({ ...scope, concurrency_key: 'k', created_at: fixtureTime(4) });
        await ctx.adapter.runs.insertMany([keyed, empty, nulled, absent]);
        expect(await ctx.adapter.runs.listLive(scope.org_id, scope.automation_id, null)).toEqual([absent, nulled]);
        expect(await ctx.adapter.runs.listLive(scope.org_id, scope.automation_id, '')).toEqual([empty]);
      });

      it('follows transitions, and inside a transaction reads its own writes while others read the committed runs', async () => {
        const scope = { org_id: uniqueId('org'), automation_id: uniqueId('auto'), concurrency_key: 'deploy' };
        const first = makeRunRecord({ ...scope, created_at: fixtureTime(1) });
        const second = makeRunRecord({ ...scope, created_at: fixtureTime(2) });
        await ctx.adapter.runs.insertMany([first, second]);
        const running = await ctx.adapter.runs.transition(scope.org_id, first.id, { from: ['PENDING'] }, { status: 'RUNNING', attempt: 1 });
        const live = () => ctx.adapter.runs.listLive(scope.org_id, scope.automation_id, 'deploy');
        expect(await live()).toEqual([running, second]);
        await ctx.adapter.runs.transition(scope.org_id, first.id, { from: ['RUNNING'] }, { status: 'COMPLETED', completed_at: fixtureTime(3) });
        expect(await live()).toEqual([second]);

        const added = makeRunRecord({ ...scope, created_at: fixtureTime(0) });
        const error = new Error('rollback');
        await expect(
          ctx.adapter.transaction(async (tx) => {
            await tx.runs.insertMany([added]);
            await tx.runs.transition(scope.org_id, second.id, { from: ['PENDING'] }, { status: 'CANCELLED', completed_at: fixtureTime(4) });
            expect(await tx.runs.listLive(scope.org_id, scope.automation_id, 'deploy')).toEqual([added]);
            expect(await live()).toEqual([second]);
            throw error;
          }),
        ).rejects.toBe(error);
        expect(await live()).toEqual([second]);
      });
    });

    describe('countCreatedSince', () => {
      it("counts the automation's runs created at or after the time, every status but SKIPPED and CANCELLED", async () => {
        const scope = { org_id: uniqueId('org'), automation_id: uniqueId('auto') };
        const at = (seconds: number, status: RunStatus = 'PENDING'): RunRecord => makeRunRecord({ ...scope, status, created_at: fixtureTime(seconds) });
        const before = at(9);
        const counted = [at(10), at(11, 'RUNNING'), at(12, 'COMPLETED'), at(13, 'FAILED')];
        const skipped = at(15, 'SKIPPED');
        const cancelled = at(14, 'CANCELLED');
        const otherAutomation = makeRunRecord({ org_id: scope.org_id, created_at: fixtureTime(20) });
        const otherOrg = makeRunRecord({ automation_id: scope.automation_id, created_at: fixtureTime(20) });
        await ctx.adapter.runs.insertMany([skipped, ...counted, cancelled, otherOrg, before, otherAutomation]);
        const count = (seconds: number) => ctx.adapter.runs.countCreatedSince(scope.org_id, scope.automation_id, fixtureTime(seconds));
        expect(await count(0)).toBe(5);
        expect(await count(10)).toBe(4);
        expect(await count(12)).toBe(2);
        expect(await count(15)).toBe(0);
        expect(await count(100)).toBe(0);
        expect(await ctx.adapter.runs.countCreatedSince(uniqueId('org'), scope.automation_id, fixtureTime(0))).toBe(0);
      });

      it('compares instants, not text, and follows a run skipped by transition, rolled back or not', async () => {
        const scope = { org_id: uniqueId('org'), automation_id: uniqueId('auto') };
        // As text, `…:01.500Z` sorts before `…:01Z`; as instants it comes after.
        const half = makeRunRecord({ ...scope, created_at: '2025-01-01T00:00:01.500Z' });
        const whole = makeRunRecord({ ...scope, created_at: '2025-01-01T00:00:01Z' });
        await ctx.adapter.runs.insertMany([half, whole]);
        const count = (since: string) => ctx.adapter.runs.countCreatedSince(scope.org_id, scope.automation_id, since);
        expect(await count('2025-01-01T00:00:01.200Z')).toBe(1);
        expect(await count('2025-01-01T00:00:01Z')).toBe(2);
        expect(await count('2025-01-01T00:00:01.000Z')).toBe(2);

        const error = new Error('rollback');
        await expect(
          ctx.adapter.transaction(async (tx) => {
            await tx.runs.transition(scope.org_id, half.id, { from: ['PENDING'] }, { status: 'SKIPPED', completed_at: fixtureTime(2) });
            expect(await tx.runs.countCreatedSince(scope.org_id, scope.automation_id, fixtureTime(0))).toBe(1);
            expect(await count(fixtureTime(0))).toBe(2);
            throw error;
          }),
        ).rejects.toBe(error);
        expect(await count(fixtureTime(0))).toBe(2);
        await ctx.adapter.runs.transition(scope.org_id, half.id, { from: ['PENDING'] }, { status: 'SKIPPED', completed_at: fixtureTime(2) });
        expect(await count(fixtureTime(0))).toBe(1);
        await ctx.adapter.runs.transition(scope.org_id, whole.id, { from: ['PENDING'] }, { status: 'CANCELLED', completed_at: fixtureTime(2) });
        expect(await count(fixtureTime(0))).toBe(0);
      });
    });

    describe('listByStatus', () => {
      /** The first {@link WIDE} runs in `status`, checked for status and order. */
      const list = async (runs: RunsRepository, status: RunStatus): Promise<RunRecord[]> => {
        const listed = await runs.listByStatus(status, WIDE);
        expectListedInStatus(listed, status);
        return listed;
      };

      it("returns only runs in that status, every org's, oldest first then by id ascending", async () => {
        const base = uniqueId('run');
        const at = (suffix: string, ms: number, overrides: Partial<RunRecord> = {}): RunRecord =>
          makeRunRecord({ id: `${base}-${suffix}`, created_at: pastTime(ms), ...overrides });
        const early = at('d', 10);
        const tieB = at('b', 20);
        const tieC = at('c', 20);
        const late = at('a', 30);
        const running = at('e', 5, { status: 'RUNNING', started_at: pastTime(6) });
        const completed = at('f', 15, { status: 'COMPLETED', completed_at: pastTime(16) });
        const all = [early, tieB, tieC, late, running, completed];
        expect(new Set(all.map((record) => record.org_id)).size).toBe(all.length);
        await ctx.adapter.runs.insertMany([tieC, completed, late]);
        await ctx.adapter.runs.insertMany([running, early, tieB]);
        expect(mine(await list(ctx.adapter.runs, 'PENDING'), all)).toEqual([early, tieB, tieC, late]);
        expect(mine(await list(ctx.adapter.runs, 'RUNNING'), all)).toEqual([running]);
        expect(mine(await list(ctx.adapter.runs, 'COMPLETED'), all)).toEqual([completed]);
        expect(mine(await list(ctx.adapter.runs, 'FAILED'), all)).toEqual([]);
      });

      it('compares created_at as instants, not as text', async () => {
        // As text, `…:01.500Z` sorts before `…:01Z`; as instants it comes after.
        const second = Math.ceil(PAST / 1000) * 1000;
        const wholeAt = new Date(second).toISOString().replace('.000Z', 'Z');
        const whole = makeRunRecord({ created_at: wholeAt, status: 'SKIPPED' });
        const half = makeRunRecord({ created_at: new Date(second + 500).toISOString(), status: 'SKIPPED' });
        await ctx.adapter.runs.insertMany([half, whole]);
        expect(mine(await list(ctx.adapter.runs, 'SKIPPED'), [whole, half])).toEqual([whole, half]);
      });

      it('returns at most limit runs, the first of the full list', async () => {
        const records = [3, 1, 2].map((ms) => makeRunRecord({ created_at: pastTime(ms) }));
        await ctx.adapter.runs.insertMany(records);
        const full = await list(ctx.adapter.runs, 'PENDING');
        expect(mine(full, records)).toEqual([records[1], records[2], records[0]]);
        for (const limit of [1, 2, 3]) {
          expect(await ctx.adapter.runs.listByStatus('PENDING', limit)).toEqual(full.slice(0, limit));
        }
      });

      it('follows status changes made by transition', async () => {
        const record = makeRunRecord({ created_at: pastTime(1) });
        const other = makeRunRecord({ created_at: pastTime(2) });
        await ctx.adapter.runs.insertMany([record, other]);
        const mineOf = async (status: RunStatus) => mine(await list(ctx.adapter.runs, status), [record, other]);
        expect(await mineOf('PENDING')).toEqual([record, other]);

        const running = await ctx.adapter.runs.transition(
          record.org_id,
          record.id,
          { from: ['PENDING'] },
          { status: 'RUNNING', attempt: 1, started_at: pastTime(3) },
        );
        expect(running).toEqual({ ...record, status: 'RUNNING', attempt: 1, started_at: pastTime(3) });
        expect(await mineOf('PENDING')).toEqual([other]);
        expect(await mineOf('RUNNING')).toEqual([running]);

        // A transition that keeps the status shows its new fields in the list.
        const attached = await ctx.adapter.runs.transition(record.org_id, record.id, { from: ['RUNNING'] }, { conversation_id: 'conv-1' });
        expect(attached?.conversation_id).toBe('conv-1');
        expect(await mineOf('RUNNING')).toEqual([attached]);

        const failed = await ctx.adapter.runs.transition(
          record.org_id,
          record.id,
          { from: ['RUNNING'] },
          { status: 'FAILED', completed_at: pastTime(4), error_detail: 'boom' },
        );
        expect(await mineOf('RUNNING')).toEqual([]);
        expect(await mineOf('FAILED')).toEqual([failed]);

        // A transition refused for another org moves nothing.
        expect(await ctx.adapter.runs.transition(uniqueId('org'), other.id, { from: ['PENDING'] }, { status: 'CANCELLED' })).toBeNull();
        expect(await mineOf('PENDING')).toEqual([other]);
        expect(await mineOf('CANCELLED')).toEqual([]);
      });

      it('a rolled-back transaction that changed statuses leaves the lists as they were', async () => {
        const first = makeRunRecord({ created_at: pastTime(1) });
        const second = makeRunRecord({ created_at: pastTime(2) });
        const running = makeRunRecord({ created_at: pastTime(3), status: 'RUNNING', attempt: 1 });
        const added = makeRunRecord({ created_at: pastTime(0) });
        const all = [first, second, running, added];
        await ctx.adapter.runs.insertMany([first, second, running]);
        const snapshot = async (runs: RunsRepository) => ({
          pending: mine(await list(runs, 'PENDING'), all),
          running: mine(await list(runs, 'RUNNING'), all),
          failed: mine(await list(runs, 'FAILED'), all),
        });
        const before = { pending: [first, second], running: [running], failed: [] };
        expect(await snapshot(ctx.adapter.runs)).toEqual(before);

        const error = new Error('rollback');
        const claimed: RunRecord = { ...first, status: 'RUNNING', attempt: 1 };
        const failed: RunRecord = { ...running, status: 'FAILED', error_detail: 'crashed' };
        await expect(
          ctx.adapter.transaction(async (tx) => {
            expect(await tx.runs.transition(first.org_id, first.id, { from: ['PENDING'] }, { status: 'RUNNING', attempt: 1 })).toEqual(claimed);
            expect(await tx.runs.transition(running.org_id, running.id, { from: ['RUNNING'] }, { status: 'FAILED', error_detail: 'crashed' })).toEqual(failed);
            await tx.runs.insertMany([added]);
            // The transaction reads its own writes; everyone else still reads the committed lists.
            expect(await snapshot(tx.runs)).toEqual({ pending: [added, second], running: [claimed], failed: [failed] });
            expect(await snapshot(ctx.adapter.runs)).toEqual(before);
            throw error;
          }),
        ).rejects.toBe(error);
        expect(await snapshot(ctx.adapter.runs)).toEqual(before);
      });

      it('returns copies: changing them changes nothing stored', async () => {
        const record = makeRunRecord({ created_at: pastTime(1), status: 'CANCELLED' });
        const expected = structuredClone(record);
        await ctx.adapter.runs.insertMany([record]);
        for (const returned of mine(await list(ctx.adapter.runs, 'CANCELLED'), [expected])) {
          returned.status = 'PENDING';
          returned.error_detail = 'scribbled';
        }
        expect(mine(await list(ctx.adapter.runs, 'CANCELLED'), [expected])).toEqual([expected]);
        expect(mine(await list(ctx.adapter.runs, 'PENDING'), [expected])).toEqual([]);
        expect(await ctx.adapter.runs.get(expected.org_id, expected.id)).toEqual(expected);
      });
    });
  });
}
