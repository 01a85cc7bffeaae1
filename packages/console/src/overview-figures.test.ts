/**
 * The overview page's arithmetic (app/pages/overview-figures.ts): its periods in the address, the
 * queries each one makes of the overview and usage APIs, a bucket's success rate, bar heights,
 * and durations and buckets written in the user's language.
 */
import { describe, expect, it } from 'vitest';
import {
  barHeight,
  DEFAULT_PERIOD,
  formatBucket,
  formatDuration,
  OVERVIEW_PERIODS,
  overviewPath,
  periodOf,
  periodQueries,
  successRate,
  sumOf,
} from '../app/pages/overview-figures.js';

describe('the overview page’s figures', () => {
  it('reads the period from the address, falling back to the last 7 days, and writes it back', () => {
    expect(periodOf('24h').label).toBe('Last 24 hours');
    expect(periodOf('30d').ms).toBe(30 * 86_400_000);
    expect(periodOf(null)).toBe(DEFAULT_PERIOD);
    expect(periodOf('1y')).toBe(DEFAULT_PERIOD);
    expect(DEFAULT_PERIOD.value).toBe('7d');
    expect(OVERVIEW_PERIODS.map((period) => overviewPath(period))).toEqual(['overview?period=24h', 'overview', 'overview?period=30d']);
    for (const period of OVERVIEW_PERIODS) expect(periodOf(new URLSearchParams(overviewPath(period).split('?')[1]).get('period'))).toBe(period);
  });

  it('asks for the period up to now by hour (a day) or by day, and the spend of every UTC day it touches', () => {
    const now = Date.parse('2026-03-01T04:30:00Z');
    expect(periodQueries(periodOf('24h'), now)).toEqual({
      overview: { from: '2026-02-28T04:30:00.000Z', to: '2026-03-01T04:30:00.000Z', bucket: 'hour' },
      usage: { from: '2026-02-28', to: '2026-03-01' },
    });
    expect(periodQueries(periodOf('7d'), now)).toEqual({
      overview: { from: '2026-02-22T04:30:00.000Z', to: '2026-03-01T04:30:00.000Z', bucket: 'day' },
      usage: { from: '2026-02-22', to: '2026-03-01' },
    });
    // A leap year's February.
    expect(periodQueries(periodOf('30d'), Date.parse('2024-03-01T00:00:00Z')).usage).toEqual({ from: '2024-01-31', to: '2024-03-01' });
  });

  it('rates a bucket as its completed runs of those that finished, none when none did', () => {
    expect(successRate({ COMPLETED: 3, FAILED: 1 })).toBe(0.75);
    expect(successRate({ COMPLETED: 0, FAILED: 2 })).toBe(0);
    expect(successRate({ COMPLETED: 0, FAILED: 0 })).toBeNull();
    expect(sumOf({ PENDING: 1, RUNNING: 2, COMPLETED: 3, FAILED: 0, CANCELLED: 0, SKIPPED: 4 })).toBe(10);
  });

  it('sizes bars against the tallest, a small one still seen and none for nothing', () => {
    expect(barHeight(5, 10)).toBe(50);
    expect(barHeight(10, 10)).toBe(100);
    expect(barHeight(1, 1000)).toBe(2);
    expect(barHeight(0, 10)).toBe(0);
    expect(barHeight(3, 0)).toBe(0);
    expect(barHeight(20, 10)).toBe(100);
    expect(barHeight(1, 4, 10)).toBe(2.5);
  });

  it('writes a duration in its largest unit, in the language asked', () => {
    expect(formatDuration(850, ['en'])).toBe('850 ms');
    expect(formatDuration(12_340, ['en'])).toBe('12.3 sec');
    expect(formatDuration(246_000, ['en'])).toBe('4.1 min');
    expect(formatDuration(7_200_000, ['en'])).toBe('2 hr');
    expect(formatDuration(129_600_000, ['en'])).toBe('1.5 days');
    expect(formatDuration(12_340, ['de'])).toBe('12,3 Sek.');
    expect(formatDuration(null, ['en'])).toBe('—');
  });

  it('writes an hour’s bucket in the browser’s zone and a day’s as its UTC day', () => {
    expect(formatBucket('2026-11-29T00:00:00.000Z', 'day', ['en-GB'])).toBe('29 Nov 2026');
    expect(formatBucket('2026-11-29T00:00:00.000Z', 'day', ['de'])).toBe('29.11.2026');
    expect(formatBucket('2026-11-29T14:00:00.000Z', 'hour', ['en-GB'])).toMatch(/^\d{1,2} Nov(, | )\d{2}:00$/);
    expect(formatBucket('not a time', 'hour', ['en'])).toBe('not a time');
  });
});
