/**
 * Conformance: `automations` repository. Every lookup is scoped by org: another org's id must
 * look exactly like a missing one. `listEnabledBySource` is what ingest asks for on every
 * delivery, so it is checked against each change that moves an automation in or out of it.
 * @module
 */
import { describe, expect, it } from 'vitest';
import { StorageConflictError } from '@agent-platform/core';
import type { AutomationRecord } from '@agent-platform/core';
import { fixtureTime, makeAutomationRecord, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

/** `listEnabledBySource` answers in any order; compare by id. */
function byId(records: readonly AutomationRecord[]): AutomationRecord[] {
  return [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function describeAutomations(ctx: SuiteContext): void {
  describe('automations', () => {
    it('get returns null for an unknown automation, and list of an org without any is empty', async () => {
      const orgId = uniqueId('org');
      expect(await ctx.adapter.automations.get(orgId, uniqueId('auto'))).toBeNull();
      expect(await ctx.adapter.automations.list(orgId, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      expect(await ctx.adapter.automations.listEnabledBySource(orgId, 'github')).toEqual([]);
    });

    it('insert then get returns the record', async () => {
      const record = makeAutomationRecord({
        trigger: { source: 'stripe', on: 'invoice.paid', filter: null },
        sandbox_spec_id: 'spec-1',
        timeout_seconds: null,
        last_triggered_at: fixtureTime(5),
      });
      await ctx.adapter.automations.insert(record);
      expect(await ctx.adapter.automations.get(record.org_id, record.id)).toEqual(record);
    });

    it("get returns null for another org's automation", async () => {
      const record = makeAutomationRecord();
      await ctx.adapter.automations.insert(record);
      expect(await ctx.adapter.automations.get(uniqueId('org'), record.id)).toBeNull();
    });

    it('insert with an existing id throws StorageConflictError, even in another org, and keeps the stored one', async () => {
      const record = makeAutomationRecord();
      await ctx.adapter.automations.insert(record);
      const duplicate = makeAutomationRecord({ id: record.id, name: 'other' });
      await expect(ctx.adapter.automations.insert(duplicate)).rejects.toBeInstanceOf(StorageConflictError);
      expect(await ctx.adapter.automations.get(record.org_id, record.id)).toEqual(record);
      expect(await ctx.adapter.automations.get(duplicate.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.automations.list(duplicate.org_id, { limit: 10, offset: 0 })).toEqual({
        items: [],
        total: 0,
      });
      expect(await ctx.adapter.automations.listEnabledBySource(duplicate.org_id, 'github')).toEqual([]);
    });

    it("list returns only the org's automations, newest first, then by id descending", async () => {
      const orgId = uniqueId('org');
      const base = uniqueId('auto');
      const early = makeAutomationRecord({ org_id: orgId, id: `${base}-a`, created_at: fixtureTime(10) });
      const tieB = makeAutomationRecord({ org_id: orgId, id: `${base}-b`, created_at: fixtureTime(20) });
      const tieC = makeAutomationRecord({ org_id: orgId, id: `${base}-c`, created_at: fixtureTime(20) });
      const late = makeAutomationRecord({ org_id: orgId, id: `${base}-d`, created_at: fixtureTime(30), enabled: false });
      const elsewhere = makeAutomationRecord({ created_at: fixtureTime(25) });
      for (const record of [tieB, late, elsewhere, early, tieC]) await ctx.adapter.automations.insert(record);
      expect(await ctx.adapter.automations.list(orgId, { limit: 10, offset: 0 })).toEqual({
        items: [late, tieC, tieB, early],
        total: 4,
      });
    });

    it('list compares created_at as instants, not as text', async () => {
      const orgId = uniqueId('org');
      // As text "…:01Z" sorts after "…:01.500Z"; as instants it is half a second earlier.
      const whole = makeAutomationRecord({ org_id: orgId, created_at: '2025-01-01T00:00:01Z' });
      const half = makeAutomationRecord({ org_id: orgId, created_at: '2025-01-01T00:00:01.500Z' });
      await ctx.adapter.automations.insert(half);
      await ctx.adapter.automations.insert(whole);
      expect((await ctx.adapter.automations.list(orgId, { limit: 10, offset: 0 })).items).toEqual([half, whole]);
    });

    it('list pages with limit and offset while total counts every automation of the org', async () => {
      const orgId = uniqueId('org');
      const records = [0, 1, 2, 3, 4].map((n) => makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(n) }));
      for (const record of [records[2], records[0], records[4], records[1], records[3]]) {
        if (record) await ctx.adapter.automations.insert(record);
      }
      const newestFirst = [...records].reverse();
      const list = (limit: number, offset: number) => ctx.adapter.automations.list(orgId, { limit, offset });
      expect(await list(2, 0)).toEqual({ items: newestFirst.slice(0, 2), total: 5 });
      expect(await list(2, 2)).toEqual({ items: newestFirst.slice(2, 4), total: 5 });
      expect(await list(2, 4)).toEqual({ items: newestFirst.slice(4), total: 5 });
      expect(await list(10, 5)).toEqual({ items: [], total: 5 });
      expect(await list(1, 100)).toEqual({ items: [], total: 5 });
    });

    it("listEnabledBySource returns only the org's enabled automations of that source", async () => {
      const orgId = uniqueId('org');
      const first = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(1) });
      const second = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(2), trigger: { on: 'push' } });
      const disabled = makeAutomationRecord({ org_id: orgId, enabled: false });
      const otherSource = makeAutomationRecord({ org_id: orgId, trigger: { source: 'stripe' } });
      const otherOrg = makeAutomationRecord();
      for (const record of [second, disabled, otherSource, otherOrg, first]) await ctx.adapter.automations.insert(record);
      expect(byId(await ctx.adapter.automations.listEnabledBySource(orgId, 'github'))).toEqual(byId([first, second]));
      expect(await ctx.adapter.automations.listEnabledBySource(orgId, 'stripe')).toEqual([otherSource]);
      expect(await ctx.adapter.automations.listEnabledBySource(orgId, 'linear')).toEqual([]);
      expect(await ctx.adapter.automations.listEnabledBySource(otherOrg.org_id, 'github')).toEqual([otherOrg]);
      expect(await ctx.adapter.automations.listEnabledBySource(uniqueId('org'), 'github')).toEqual([]);
    });

    it('listEnabledBySource follows updates that disable, enable or move an automation, and deletes', async () => {
      const orgId = uniqueId('org');
      const moving = makeAutomationRecord({ org_id: orgId });
      const toggled = makeAutomationRecord({ org_id: orgId, enabled: false });
      const deleted = makeAutomationRecord({ org_id: orgId });
      for (const record of [moving, toggled, deleted]) await ctx.adapter.automations.insert(record);
      const enabled = (source: string) => ctx.adapter.automations.listEnabledBySource(orgId, source);
      expect(byId(await enabled('github'))).toEqual(byId([moving, deleted]));

      const moved = { ...moving, trigger: { ...moving.trigger, source: 'stripe' } };
      expect(await ctx.adapter.automations.update(moved)).toBe(true);
      const switchedOn = { ...toggled, enabled: true };
      expect(await ctx.adapter.automations.update(switchedOn)).toBe(true);
      expect(await ctx.adapter.automations.delete(orgId, deleted.id)).toBe(true);
      expect(await enabled('github')).toEqual([switchedOn]);
      expect(await enabled('stripe')).toEqual([moved]);

      const switchedOff = { ...moved, enabled: false };
      expect(await ctx.adapter.automations.update(switchedOff)).toBe(true);
      expect(await enabled('stripe')).toEqual([]);
      expect(await ctx.adapter.automations.get(orgId, moving.id)).toEqual(switchedOff);
    });

    it('update replaces the stored record and returns true', async () => {
      const record = makeAutomationRecord({ created_at: fixtureTime(1) });
      await ctx.adapter.automations.insert(record);
      const updated: AutomationRecord = {
        ...record,
        name: 'Renamed',
        trigger: { type: 'event', source: 'github', on: 'issues.*', filter: null },
        instructions: 'Triage the issue.',
        llm_model: null,
        selected_repository: null,
        timeout_seconds: 60,
        updated_at: fixtureTime(100),
      };
      expect(await ctx.adapter.automations.update(updated)).toBe(true);
      expect(await ctx.adapter.automations.get(record.org_id, record.id)).toEqual(updated);
      expect(await ctx.adapter.automations.list(record.org_id, { limit: 10, offset: 0 })).toEqual({
        items: [updated],
        total: 1,
      });
      expect(await ctx.adapter.automations.listEnabledBySource(record.org_id, 'github')).toEqual([updated]);
    });

    it('update returns false for an unknown id and stores nothing', async () => {
      const record = makeAutomationRecord();
      expect(await ctx.adapter.automations.update(record)).toBe(false);
      expect(await ctx.adapter.automations.get(record.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.automations.listEnabledBySource(record.org_id, 'github')).toEqual([]);
    });

    it("update returns false for another org's automation and leaves it unchanged", async () => {
      const record = makeAutomationRecord();
      await ctx.adapter.automations.insert(record);
      const hijack = { ...record, org_id: uniqueId('org'), name: 'Hijacked' };
      expect(await ctx.adapter.automations.update(hijack)).toBe(false);
      expect(await ctx.adapter.automations.get(record.org_id, record.id)).toEqual(record);
      expect(await ctx.adapter.automations.get(hijack.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.automations.listEnabledBySource(hijack.org_id, 'github')).toEqual([]);
    });

    it("markTriggered sets last_triggered_at on the org's automations named and nothing else", async () => {
      const orgId = uniqueId('org');
      const first = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(1) });
      const second = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(2), last_triggered_at: fixtureTime(3) });
      const untouched = makeAutomationRecord({ org_id: orgId, created_at: fixtureTime(3) });
      const foreign = makeAutomationRecord();
      for (const record of [first, second, untouched, foreign]) await ctx.adapter.automations.insert(record);
      await ctx.adapter.automations.markTriggered(orgId, [first.id, second.id, foreign.id, uniqueId('auto')], fixtureTime(60));
      const firstTriggered = { ...first, last_triggered_at: fixtureTime(60) };
      const secondTriggered = { ...second, last_triggered_at: fixtureTime(60) };
      expect(await ctx.adapter.automations.get(orgId, first.id)).toEqual(firstTriggered);
      expect(await ctx.adapter.automations.get(orgId, second.id)).toEqual(secondTriggered);
      expect(await ctx.adapter.automations.get(orgId, untouched.id)).toEqual(untouched);
      expect(await ctx.adapter.automations.get(foreign.org_id, foreign.id)).toEqual(foreign);
      expect((await ctx.adapter.automations.list(orgId, { limit: 10, offset: 0 })).items).toEqual([untouched, secondTriggered, firstTriggered]);
      expect(byId(await ctx.adapter.automations.listEnabledBySource(orgId, 'github'))).toEqual(byId([firstTriggered, secondTriggered, untouched]));
    });

    it('markTriggered with no or only unknown ids resolves and creates nothing', async () => {
      const orgId = uniqueId('org');
      const id = uniqueId('auto');
      await expect(ctx.adapter.automations.markTriggered(orgId, [], fixtureTime(1))).resolves.toBeUndefined();
      await expect(ctx.adapter.automations.markTriggered(orgId, [id], fixtureTime(1))).resolves.toBeUndefined();
      expect(await ctx.adapter.automations.get(orgId, id)).toBeNull();
      expect(await ctx.adapter.automations.list(orgId, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
    });

    it('delete returns true and removes the automation from every lookup', async () => {
      const record = makeAutomationRecord({ created_at: fixtureTime(1) });
      const kept = makeAutomationRecord({ org_id: record.org_id, created_at: fixtureTime(2) });
      await ctx.adapter.automations.insert(record);
      await ctx.adapter.automations.insert(kept);
      expect(await ctx.adapter.automations.delete(record.org_id, record.id)).toBe(true);
      expect(await ctx.adapter.automations.get(record.org_id, record.id)).toBeNull();
      expect(await ctx.adapter.automations.list(record.org_id, { limit: 10, offset: 0 })).toEqual({
        items: [kept],
        total: 1,
      });
      expect(await ctx.adapter.automations.listEnabledBySource(record.org_id, 'github')).toEqual([kept]);
    });

    it("delete returns false for an unknown, already deleted or another org's automation", async () => {
      const record = makeAutomationRecord();
      await ctx.adapter.automations.insert(record);
      expect(await ctx.adapter.automations.delete(record.org_id, uniqueId('auto'))).toBe(false);
      expect(await ctx.adapter.automations.delete(uniqueId('org'), record.id)).toBe(false);
      expect(await ctx.adapter.automations.get(record.org_id, record.id)).toEqual(record);
      expect(await ctx.adapter.automations.delete(record.org_id, record.id)).toBe(true);
      expect(await ctx.adapter.automations.delete(record.org_id, record.id)).toBe(false);
    });

    it('a deleted automation frees its id for a new insert', async () => {
      const record = makeAutomationRecord();
      await ctx.adapter.automations.insert(record);
      await ctx.adapter.automations.delete(record.org_id, record.id);
      const again = makeAutomationRecord({ id: record.id, org_id: record.org_id, name: 'again' });
      await ctx.adapter.automations.insert(again);
      expect(await ctx.adapter.automations.get(record.org_id, record.id)).toEqual(again);
    });
  });
}
