/**
 * Conformance: `budgets` — each org's budgets, one per (scope, subject, period): a put into a
 * free slot stores the record, a put into a taken one keeps that budget's id and creation and
 * takes the new limit; lists are per org, oldest first; a delete removes only the org's own.
 * @module
 */
import { describe, expect, it } from 'vitest';
import type { BudgetRecord } from '@agent-platform/core';
import { fixtureTime, uniqueId } from '../fixtures/records.js';
import type { SuiteContext } from './context.js';

function budget(overrides: Partial<BudgetRecord> = {}): BudgetRecord {
  return {
    id: uniqueId('bud'),
    org_id: uniqueId('org'),
    scope: 'org',
    subject_id: null,
    period: 'month',
    limit_usd: 100,
    updated_by: 'alice',
    created_at: fixtureTime(0),
    updated_at: fixtureTime(0),
    ...overrides,
  };
}

export function describeBudgets(ctx: SuiteContext): void {
  describe('budgets', () => {
    it('lists none for an org without budgets', async () => {
      expect(await ctx.adapter.budgets.list(uniqueId('org'))).toEqual([]);
    });

    it('stores budgets of every scope and period, listed oldest first', async () => {
      const orgId = uniqueId('org');
      const budgets = [
        budget({ org_id: orgId, created_at: fixtureTime(3) }),
        budget({ org_id: orgId, period: 'day', limit_usd: 5, created_at: fixtureTime(1) }),
        budget({ org_id: orgId, scope: 'user', subject_id: 'bob', limit_usd: 2.5, created_at: fixtureTime(2) }),
        budget({ org_id: orgId, scope: 'automation', subject_id: 'auto_1', period: 'day', limit_usd: 0.01, created_at: fixtureTime(4) }),
      ];
      for (const each of budgets) expect(await ctx.adapter.budgets.put(each)).toEqual(each);
      expect(await ctx.adapter.budgets.list(orgId)).toEqual([budgets[1], budgets[2], budgets[0], budgets[3]]);
    });

    it('replaces the limit of the budget in a taken slot, keeping its id and creation', async () => {
      const first = budget({ scope: 'user', subject_id: 'bob' });
      await ctx.adapter.budgets.put(first);
      const second = budget({
        org_id: first.org_id,
        scope: 'user',
        subject_id: 'bob',
        limit_usd: 7,
        updated_by: 'carol',
        created_at: fixtureTime(9),
        updated_at: fixtureTime(9),
      });
      const stored = await ctx.adapter.budgets.put(second);
      expect(stored).toEqual({ ...first, limit_usd: 7, updated_by: 'carol', updated_at: fixtureTime(9) });
      expect(await ctx.adapter.budgets.list(first.org_id)).toEqual([stored]);
      // Another subject, period or org is another slot.
      await ctx.adapter.budgets.put(budget({ org_id: first.org_id, scope: 'user', subject_id: 'carol' }));
      await ctx.adapter.budgets.put(budget({ org_id: first.org_id, scope: 'user', subject_id: 'bob', period: 'day' }));
      await ctx.adapter.budgets.put(budget({ scope: 'user', subject_id: 'bob' }));
      expect(await ctx.adapter.budgets.list(first.org_id)).toHaveLength(3);
    });

    it("deletes the org's own budget only", async () => {
      const kept = budget();
      await ctx.adapter.budgets.put(kept);
      expect(await ctx.adapter.budgets.delete(uniqueId('org'), kept.id)).toBe(false);
      expect(await ctx.adapter.budgets.list(kept.org_id)).toEqual([kept]);
      expect(await ctx.adapter.budgets.delete(kept.org_id, kept.id)).toBe(true);
      expect(await ctx.adapter.budgets.delete(kept.org_id, kept.id)).toBe(false);
      expect(await ctx.adapter.budgets.list(kept.org_id)).toEqual([]);
      // The slot is free again.
      const again = budget({ org_id: kept.org_id });
      expect(await ctx.adapter.budgets.put(again)).toEqual(again);
    });

    it('writes inside a transaction, and nothing when it throws', async () => {
      const orgId = uniqueId('org');
      const kept = budget({ org_id: orgId });
      await ctx.adapter.transaction(async (tx) => {
        await tx.budgets.put(kept);
        expect(await tx.budgets.list(orgId)).toEqual([kept]);
      });
      await expect(
        ctx.adapter.transaction(async (tx) => {
          await tx.budgets.put(budget({ org_id: orgId, period: 'day' }));
          await tx.budgets.delete(orgId, kept.id);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await ctx.adapter.budgets.list(orgId)).toEqual([kept]);
    });
  });
}
