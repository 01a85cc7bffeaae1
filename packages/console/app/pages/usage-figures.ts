/**
 * The usage page's arithmetic: the days a period covers (UTC calendar days, as the API counts
 * them), and how full a budget is. Dollars, counts and days are written by format.ts.
 *
 * Pure (no DOM, no Preact), so the unit tests import it directly.
 */

const DAY_MS = 86_400_000;

/** Today in UTC, `YYYY-MM-DD`. */
export const todayUtc = (now: Date = new Date()): string => now.toISOString().slice(0, 10);

/** The day `days` before `day` (both `YYYY-MM-DD`, UTC). */
export const daysBefore = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);

/** The last `days` days up to today, both ends included: `{ from, to }` as the usage API takes them. */
export function lastDays(days: number, now: Date = new Date()): { from: string; to: string } {
  const to = todayUtc(now);
  return { from: daysBefore(to, days - 1), to };
}

/** Every day from `from` to `to`, both included; empty when the range is backwards or not two days. */
export function daysBetween(from: string, to: string, max = 366): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if (Number.isNaN(start) || Number.isNaN(end) || end < start) return [];
  const days: string[] = [];
  for (let at = start; at <= end && days.length < max; at += DAY_MS) days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

/** How full a budget is, 0 to 1 (a budget over its cap is full). */
export const budgetShare = (spent: number, limit: number): number => (limit > 0 ? Math.min(1, Math.max(0, spent / limit)) : 1);
