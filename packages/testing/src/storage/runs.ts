/**
 * Conformance: `runs` repository. `insertMany` is all or nothing; lookups are scoped by org.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { RunRecord } from '@agent-platform/core';
import { fixtureTime, makeRunRecord, uniqueId } from '../fixtures.js';
import type { SuiteContext } from './context.js';

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
      const records = [0, 1, 2, 3, 4].map((n) =>
        makeRunRecord({ org_id: orgId, automation_id: automationId, created_at: fixtureTime(n) }),
      );
      await ctx.adapter.runs.insertMany([...records].reverse());
      const newestFirst = [...records].reverse();
      const list = (limit: number, offset: number) => ctx.adapter.runs.listByAutomation(orgId, automationId, { limit, offset });
      expect(await list(2, 0)).toEqual({ items: newestFirst.slice(0, 2), total: 5 });
      expect(await list(2, 2)).toEqual({ items: newestFirst.slice(2, 4), total: 5 });
      expect(await list(2, 4)).toEqual({ items: newestFirst.slice(4), total: 5 });
      expect(await list(10, 5)).toEqual({ items: [], total: 5 });
      expect(await list(1, 100)).toEqual({ items: [], total: 5 });
    });

    it('update replaces the stored record and returns true', async () => {
      const record = makeRunRecord();
      await ctx.adapter.runs.insertMany([record]);
      const running: RunRecord = {
        ...record,
        status: 'RUNNING',
        attempt: 1,
        conversation_id: 'conv-1',
        sandbox_id: 'sbx-1',
        started_at: fixtureTime(5),
      };
      expect(await ctx.adapter.runs.update(running)).toBe(true);
      expect(await ctx.adapter.runs.get(record.org_id, record.id)).toEqual(running);
      const done: RunRecord = { ...running, status: 'COMPLETED', completed_at: fixtureTime(50) };
      expect(await ctx.adapter.runs.update(done)).toBe(true);
      expect(await ctx.adapter.runs.get(record.org_id, record.id)).toEqual(done);
      expect(await ctx.adapter.runs.listByAutomation(record.org_id, record.automation_id, { limit: 10, offset: 0 })).toEqual({
        items: [done],
        total: 1,
      });
    });

    it('update returns false for an unknown id and stores nothing', async () => {
      const record = makeRunRecord();
      expect(await ctx.adapter.runs.update(record)).toBe(false);
      expect(await ctx.adapter.runs.get(record.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.runs.listByAutomation(record.org_id, record.automation_id, { limit: 10, offset: 0 })).toEqual({
        items: [],
        total: 0,
      });
    });

    it("update returns false for another org's run and leaves it unchanged", async () => {
      const record = makeRunRecord();
      await ctx.adapter.runs.insertMany([record]);
      const hijack: RunRecord = { ...record, org_id: uniqueId('org'), status: 'CANCELLED' };
      expect(await ctx.adapter.runs.update(hijack)).toBe(false);
      expect(await ctx.adapter.runs.get(record.org_id, record.id)).toEqual(record);
      expect(await ctx.adapter.runs.get(hijack.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.runs.listByAutomation(hijack.org_id, record.automation_id, { limit: 10, offset: 0 })).toEqual({
        items: [],
        total: 0,
      });
    });
  });
}
