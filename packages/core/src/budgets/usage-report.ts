/**
 * The usage report: the spend ledger's rows over a range of days, summed in total and by day,
 * user, automation and model.
 * @module
 */
import type { SpendRow, Usage, UsageTotals } from '../schemas/budget.js';

const zero = (): UsageTotals => ({ cost_usd: 0, prompt_tokens: 0, completion_tokens: 0, llm_calls: 0 });

function add(totals: UsageTotals, row: SpendRow): void {
  totals.cost_usd += row.cost_usd;
  totals.prompt_tokens += row.prompt_tokens;
  totals.completion_tokens += row.completion_tokens;
  totals.llm_calls += row.llm_calls;
}

/** Cents to eight places, as the agent rounds a snapshot's cost: sums of floats shown without noise. */
const rounded = (totals: UsageTotals): UsageTotals => ({ ...totals, cost_usd: Math.round(totals.cost_usd * 1e8) / 1e8 });

/** Sums `rows` by `keyOf`, most spent first (ties by key). */
function groupBy<K extends string | null>(rows: readonly SpendRow[], keyOf: (row: SpendRow) => K): Array<{ key: K; totals: UsageTotals }> {
  const groups = new Map<K, UsageTotals>();
  for (const row of rows) {
    const key = keyOf(row);
    const totals = groups.get(key) ?? zero();
    groups.set(key, totals);
    add(totals, row);
  }
  return [...groups]
    .map(([key, totals]) => ({ key, totals: rounded(totals) }))
    .sort((a, b) => b.totals.cost_usd - a.totals.cost_usd || String(a.key ?? '').localeCompare(String(b.key ?? '')));
}

export function usageReport(rows: readonly SpendRow[], from: string, to: string): Usage {
  const total = zero();
  for (const row of rows) add(total, row);
  return {
    from,
    to,
    total: rounded(total),
    by_day: groupBy(rows, (row) => row.day)
      .map(({ key, totals }) => ({ day: key, ...totals }))
      .sort((a, b) => a.day.localeCompare(b.day)),
    by_user: groupBy(rows, (row) => row.user_id).map(({ key, totals }) => ({ user_id: key, ...totals })),
    by_automation: groupBy(rows, (row) => row.automation_id).map(({ key, totals }) => ({ automation_id: key, ...totals })),
    by_model: groupBy(rows, (row) => row.model).map(({ key, totals }) => ({ model: key, ...totals })),
  };
}
