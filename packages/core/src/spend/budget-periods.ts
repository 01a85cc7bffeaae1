/**
 * The calendar of budgets: UTC days (`YYYY-MM-DD`, how the spend ledger keys its rows) and the
 * periods a cap counts over — today, or this month from its first day — with when each resets.
 * @module
 */
import type { BudgetPeriod } from '../schemas/budget.js';

/** The UTC day of `at`, `YYYY-MM-DD`. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** The first day of `period` containing `at`. */
export function periodStart(period: BudgetPeriod, at: Date): string {
  return period === 'day' ? dayOf(at) : `${dayOf(at).slice(0, 7)}-01`;
}

/** When `period` containing `at` ends: the next UTC midnight, or the first of next month. */
export function periodEnd(period: BudgetPeriod, at: Date): Date {
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  if (period === 'day') end.setUTCDate(end.getUTCDate() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1, 1);
  return end;
}

/** The day `days` after `day` (before, when negative). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return dayOf(date);
}

/** Days from `from` to `to`, both counted. */
export const daysBetween = (from: string, to: string): number => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
