/**
 * The usage page's arithmetic (app/pages/usage-figures.ts): the periods as UTC days, as the usage
 * API counts them, and how full a budget is. Its dollars and days are format.ts's (format.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { budgetShare, daysBetween, lastDays } from '../app/pages/usage-figures.js';

describe('the usage page’s figures', () => {
  it('counts the last N days back from today in UTC, today included', () => {
    // Late evening west of UTC is already tomorrow in UTC.
    const now = new Date('2026-03-01T23:30:00-05:00');
    expect(lastDays(7, now)).toEqual({ from: '2026-02-24', to: '2026-03-02' });
    expect(lastDays(1, now)).toEqual({ from: '2026-03-02', to: '2026-03-02' });
    expect(lastDays(30, new Date('2026-01-15T12:00:00Z'))).toEqual({ from: '2025-12-17', to: '2026-01-15' });
  });

  it('lists every day of a range, over month ends and leap days, and none for a backwards one', () => {
    expect(daysBetween('2024-02-27', '2024-03-01')).toEqual(['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01']);
    expect(daysBetween('2026-01-01', '2026-01-01')).toEqual(['2026-01-01']);
    expect(daysBetween('2026-01-02', '2026-01-01')).toEqual([]);
    expect(daysBetween('not a day', '2026-01-01')).toEqual([]);
    expect(daysBetween('2020-01-01', '2026-01-01')).toHaveLength(366);
  });

  it('fills a budget’s bar to its share of the limit, full past it', () => {
    expect(budgetShare(0.25, 1)).toBe(0.25);
    expect(budgetShare(3, 1)).toBe(1);
    expect(budgetShare(0, 1)).toBe(0);
  });
});
