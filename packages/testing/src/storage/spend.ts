/**
 * Conformance: `spend` — the spend ledger: an add creates its row or adds to it (every one of
 * many concurrent adds counts), rows are kept apart by org, user, automation (none included),
 * model and day, sums and lists cover exactly the days, user and automation asked, and an add is
 * part of a transaction like any other write.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { SpendRow } from '@agent-platform/core';
import { uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';
import { HOSTILE_TEXTS } from './hostile-inputs.js';

function spendRow(overrides: Partial<SpendRow> = {}): SpendRow {
  return {
    org_id: uniqueId('org'),
    user_id: 'alice',
    automation_id: uniqueId('auto'),
    model: 'openai/gpt-5',
    day: '2026-11-02',
    cost_usd: 0.25,
    prompt_tokens: 1000,
    completion_tokens: 200,
    llm_calls: 1,
    ...overrides,
  };
}

const byKey = (a: SpendRow, b: SpendRow): number =>
  `${a.day}|${a.user_id}|${a.automation_id}|${a.model}`.localeCompare(`${b.day}|${b.user_id}|${b.automation_id}|${b.model}`);

export function describeSpend(ctx: SuiteContext): void {
  describe('spend', () => {
    it('sums nothing for an org with no spend', async () => {
      const query = { orgId: uniqueId('org'), from: '2026-01-01', to: '2026-12-31' };
      expect(await ctx.adapter.spend.total(query)).toBe(0);
      expect(await ctx.adapter.spend.list(query)).toEqual([]);
    });

    it('adds to the row of the same org, user, automation, model and day, and reads it back', async () => {
      const first = spendRow();
      await ctx.adapter.spend.add(first);
      await ctx.adapter.spend.add({ ...first, cost_usd: 0.5, prompt_tokens: 10, completion_tokens: 5, llm_calls: 2 });
      const query = { orgId: first.org_id, from: first.day, to: first.day };
      expect(await ctx.adapter.spend.list(query)).toEqual([{ ...first, cost_usd: 0.75, prompt_tokens: 1010, completion_tokens: 205, llm_calls: 3 }]);
      expect(await ctx.adapter.spend.total(query)).toBeCloseTo(0.75, 10);
    });

    it('keeps rows of another user, automation, no automation, model or day apart', async () => {
      const base = spendRow();
      const others = [
        { ...base, user_id: 'bob', cost_usd: 1 },
        { ...base, automation_id: uniqueId('auto'), cost_usd: 2 },
        { ...base, automation_id: null, cost_usd: 4 },
        { ...base, model: 'anthropic/claude-sonnet-4', cost_usd: 8 },
        { ...base, day: '2026-11-03', cost_usd: 16 },
      ];
      for (const row of [base, ...others]) await ctx.adapter.spend.add(row);
      const rows = await ctx.adapter.spend.list({ orgId: base.org_id, from: '2026-11-01', to: '2026-11-30' });
      expect(rows.sort(byKey)).toEqual([base, ...others].sort(byKey));
      expect(await ctx.adapter.spend.total({ orgId: base.org_id, from: '2026-11-01', to: '2026-11-30' })).toBeCloseTo(31.25, 10);
    });

    it('covers exactly the days asked (both ends included), the user and the automation', async () => {
      const orgId = uniqueId('org');
      const automationId = uniqueId('auto');
      const rows = [
        spendRow({ org_id: orgId, automation_id: automationId, day: '2026-10-31', cost_usd: 1 }),
        spendRow({ org_id: orgId, automation_id: automationId, day: '2026-11-01', cost_usd: 2 }),
        spendRow({ org_id: orgId, automation_id: automationId, day: '2026-11-30', cost_usd: 4 }),
        spendRow({ org_id: orgId, automation_id: automationId, day: '2026-12-01', cost_usd: 8 }),
        spendRow({ org_id: orgId, automation_id: null, user_id: 'bob', day: '2026-11-15', cost_usd: 16 }),
        // Another org's spend never counts.
        spendRow({ automation_id: automationId, day: '2026-11-15', cost_usd: 32 }),
      ];
      for (const row of rows) await ctx.adapter.spend.add(row);
      const november = { orgId, from: '2026-11-01', to: '2026-11-30' };
      expect(await ctx.adapter.spend.total(november)).toBeCloseTo(22, 10);
      expect(await ctx.adapter.spend.total({ ...november, userId: 'alice' })).toBeCloseTo(6, 10);
      expect(await ctx.adapter.spend.total({ ...november, userId: 'bob' })).toBeCloseTo(16, 10);
      expect(await ctx.adapter.spend.total({ ...november, automationId })).toBeCloseTo(6, 10);
      expect(await ctx.adapter.spend.total({ ...november, userId: 'bob', automationId })).toBe(0);
      expect(await ctx.adapter.spend.total({ orgId, from: '2026-11-30', to: '2026-11-30' })).toBeCloseTo(4, 10);
      expect((await ctx.adapter.spend.list({ ...november, userId: 'bob' })).map((row) => row.automation_id)).toEqual([null]);
    });

    it("keeps each subject's day and month totals equal to the ledger's sums", async () => {
      const orgId = uniqueId('org');
      const automationId = uniqueId('auto');
      const rows = [
        spendRow({ org_id: orgId, automation_id: automationId, day: '2026-10-31', cost_usd: 1 }),
        spendRow({ org_id: orgId, automation_id: automationId, day: '2026-11-01', cost_usd: 2 }),
        spendRow({ org_id: orgId, automation_id: automationId, day: '2026-11-30', cost_usd: 4, model: 'anthropic/claude-sonnet-4' }),
        spendRow({ org_id: orgId, automation_id: null, user_id: 'bob', day: '2026-11-30', cost_usd: 8 }),
        spendRow({ automation_id: automationId, day: '2026-11-30', cost_usd: 16 }),
      ];
      for (const row of rows) await ctx.adapter.spend.add(row);
      const total = (scope: 'org' | 'user' | 'automation', subjectId: string | null, period: 'day' | 'month', start: string) =>
        ctx.adapter.spend.periodTotal(orgId, { scope, subjectId, period, start });
      expect(await total('org', null, 'month', '2026-11-01')).toBeCloseTo(14, 10);
      expect(await total('org', null, 'month', '2026-10-01')).toBeCloseTo(1, 10);
      expect(await total('org', null, 'day', '2026-11-30')).toBeCloseTo(12, 10);
      expect(await total('user', 'alice', 'month', '2026-11-01')).toBeCloseTo(6, 10);
      expect(await total('user', 'bob', 'day', '2026-11-30')).toBeCloseTo(8, 10);
      expect(await total('automation', automationId, 'month', '2026-11-01')).toBeCloseTo(6, 10);
      expect(await total('automation', automationId, 'day', '2026-11-30')).toBeCloseTo(4, 10);
      // Nothing spent there, or not this org's: zero.
      expect(await total('user', 'carol', 'month', '2026-11-01')).toBe(0);
      expect(await total('org', null, 'day', '2026-11-15')).toBe(0);
      expect(await ctx.adapter.spend.periodTotal(uniqueId('org'), { scope: 'org', subjectId: null, period: 'month', start: '2026-11-01' })).toBe(0);
    });

    it('counts every one of many concurrent adds to one row', async () => {
      const row = spendRow({ cost_usd: 0.125, llm_calls: 1 });
      await Promise.all(Array.from({ length: 40 }, () => ctx.adapter.spend.add(row)));
      const [stored] = await ctx.adapter.spend.list({ orgId: row.org_id, from: row.day, to: row.day });
      expect(stored?.llm_calls).toBe(40);
      expect(stored?.cost_usd).toBeCloseTo(5, 10);
      expect(stored?.prompt_tokens).toBe(40_000);
      expect(await ctx.adapter.spend.periodTotal(row.org_id, { scope: 'org', subjectId: null, period: 'month', start: '2026-11-01' })).toBeCloseTo(5, 10);
      expect(await ctx.adapter.spend.periodTotal(row.org_id, { scope: 'automation', subjectId: row.automation_id, period: 'day', start: row.day })).toBeCloseTo(
        5,
        10,
      );
    });

    it('stores ids and model names with U+0000 and lone surrogates, each under its own row', async () => {
      const orgId = uniqueId('org');
      for (const text of HOSTILE_TEXTS) await ctx.adapter.spend.add(spendRow({ org_id: orgId, user_id: text, automation_id: `a${text}`, model: text }));
      const rows = await ctx.adapter.spend.list({ orgId, from: '2026-11-02', to: '2026-11-02' });
      expect(rows.map((row) => row.user_id).sort()).toEqual([...HOSTILE_TEXTS].sort());
      for (const text of HOSTILE_TEXTS)
        expect(await ctx.adapter.spend.total({ orgId, from: '2026-11-02', to: '2026-11-02', userId: text })).toBeCloseTo(0.25, 10);
    });

    it('adds inside a transaction: seen by it at once, and nothing when it throws', async () => {
      const row = spendRow();
      const query = { orgId: row.org_id, from: row.day, to: row.day };
      await ctx.adapter.transaction(async (tx) => {
        await tx.spend.add(row);
        expect(await tx.spend.total(query)).toBeCloseTo(0.25, 10);
      });
      await expect(
        ctx.adapter.transaction(async (tx) => {
          await tx.spend.add(row);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await ctx.adapter.spend.total(query)).toBeCloseTo(0.25, 10);
      expect(await ctx.adapter.spend.periodTotal(row.org_id, { scope: 'user', subjectId: row.user_id, period: 'day', start: row.day })).toBeCloseTo(0.25, 10);
    });
  });
}
