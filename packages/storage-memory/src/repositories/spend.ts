/**
 * Spend control: the ledger's rows keyed by (org, user, automation, model, day), each add an
 * increment of its row under the store's lock; and each org's budgets, one per slot (scope,
 * subject, period), a put into a taken slot keeping that budget's id.
 * @module
 */
import type { BudgetsRepository, SpendQuery, SpendRepository, SpendRow, SpendTotalKey } from '@agent-platform/core';
import { readView, type Access } from '../database/access.js';
import { cloneJson } from '../database/clone-json.js';
import type { Database } from '../database/database.js';
import { budgetSlotKey, spendKey, spendTotalKey } from '../database/keys.js';
import { byCreation, copyOwned } from './rows.js';

function covered(row: SpendRow, query: SpendQuery): boolean {
  if (row.day < query.from || row.day > query.to) return false;
  if (query.userId !== undefined && row.user_id !== query.userId) return false;
  if (query.automationId !== undefined && row.automation_id !== query.automationId) return false;
  return true;
}

/** The totals an increment adds to: its day and month, for the org, the user and the automation (when it has one). */
export function totalsOf(row: SpendRow): SpendTotalKey[] {
  const periods = [
    { period: 'day' as const, start: row.day },
    { period: 'month' as const, start: `${row.day.slice(0, 7)}-01` },
  ];
  const subjects = [
    { scope: 'org' as const, subjectId: null },
    { scope: 'user' as const, subjectId: row.user_id },
    ...(row.automation_id === null ? [] : [{ scope: 'automation' as const, subjectId: row.automation_id }]),
  ];
  return subjects.flatMap((subject) => periods.map((period) => ({ ...subject, ...period })));
}

export function spendRepository(db: Database, access: Access): SpendRepository {
  const rowsOf = (query: SpendQuery): SpendRow[] =>
    readView(access, db.spend)
      .group(db.spendByOrg, query.orgId)
      .filter((row) => covered(row, query));
  return {
    async add(increment) {
      const added = cloneJson(increment);
      await access.write(() => {
        const current = db.spend.live.get(spendKey(added));
        db.spend.put(
          current === undefined
            ? added
            : {
                ...current,
                cost_usd: current.cost_usd + added.cost_usd,
                prompt_tokens: current.prompt_tokens + added.prompt_tokens,
                completion_tokens: current.completion_tokens + added.completion_tokens,
                llm_calls: current.llm_calls + added.llm_calls,
              },
        );
        for (const total of totalsOf(added)) {
          const key = spendTotalKey(added.org_id, total);
          db.spendTotals.put({ key, cost_usd: (db.spendTotals.live.get(key)?.cost_usd ?? 0) + added.cost_usd });
        }
      });
    },
    async periodTotal(orgId, key) {
      return readView(access, db.spendTotals).get(spendTotalKey(orgId, key))?.cost_usd ?? 0;
    },
    async total(query) {
      let sum = 0;
      for (const row of rowsOf(query)) sum += row.cost_usd;
      return sum;
    },
    async list(query) {
      return rowsOf(query).map(cloneJson);
    },
  };
}

export function budgetsRepository(db: Database, access: Access): BudgetsRepository {
  return {
    async list(orgId) {
      return readView(access, db.budgets).group(db.budgetsByOrg, orgId).sort(byCreation).map(cloneJson);
    },
    async put(record) {
      const row = cloneJson(record);
      return access.write(() => {
        const taken = db.budgets.live.find(db.budgetsBySlot, budgetSlotKey(row));
        const stored = taken === undefined ? row : { ...taken, limit_usd: row.limit_usd, updated_by: row.updated_by, updated_at: row.updated_at };
        db.budgets.put(stored);
        return cloneJson(stored);
      });
    },
    async delete(orgId, id) {
      return access.write(() => copyOwned(db.budgets.live.get(id), orgId) !== null && db.budgets.delete(id));
    },
  };
}
