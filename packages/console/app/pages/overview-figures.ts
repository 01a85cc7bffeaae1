/**
 * The overview page's arithmetic: the periods it offers (kept in the address as `?period=`), the
 * API queries each one makes, the success rate of a bucket, the tallest bar of a stacked chart,
 * and how a duration and a bucket's start are written in the user's language.
 *
 * Pure (no DOM, no Preact), so the unit tests import it directly.
 */
import { currentLocales, formatDay } from '../format.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The periods, as the Runs page's `age` filter names them (so a figure links to its runs). */
export const OVERVIEW_PERIODS = [
  { value: '24h', label: 'Last 24 hours', ms: DAY_MS, bucket: 'hour' },
  { value: '7d', label: 'Last 7 days', ms: 7 * DAY_MS, bucket: 'day' },
  { value: '30d', label: 'Last 30 days', ms: 30 * DAY_MS, bucket: 'day' },
] as const;
export type OverviewPeriod = (typeof OVERVIEW_PERIODS)[number];

/** The period the page opens on when the address names none (or one it does not offer). */
export const DEFAULT_PERIOD: OverviewPeriod = OVERVIEW_PERIODS[1];

/** The period an address's `?period=` names, else the default. */
export const periodOf = (value: string | null | undefined): OverviewPeriod => OVERVIEW_PERIODS.find((period) => period.value === value) ?? DEFAULT_PERIOD;

/** The console path of the overview for `period` (the default one without a query). */
export const overviewPath = (period: OverviewPeriod): string => (period === DEFAULT_PERIOD ? 'overview' : `overview?period=${period.value}`);

/**
 * What the page asks for `period` up to `now`: the overview of `[now − period, now)` by hour or
 * day, and the usage report of every UTC day that period touches (spend is summed by UTC day).
 */
export function periodQueries(period: OverviewPeriod, now: number) {
  const from = new Date(now - period.ms).toISOString();
  const to = new Date(now).toISOString();
  return { overview: { from, to, bucket: period.bucket }, usage: { from: from.slice(0, 10), to: to.slice(0, 10) } };
}

/** A bucket's COMPLETED / (COMPLETED + FAILED), as the API's `success_rate`; `null` when none finished. */
export function successRate(counts: { COMPLETED: number; FAILED: number }): number | null {
  const finished = counts.COMPLETED + counts.FAILED;
  return finished === 0 ? null : counts.COMPLETED / finished;
}

/** The sum of a record's numbers (a bucket's runs over every status). */
export const sumOf = (counts: Readonly<Record<string, number>>): number => Object.values(counts).reduce((sum, count) => sum + count, 0);

/** A bar's height in a chart `scale` tall whose tallest bar is `max`: a non-zero value always shows (at least 2% of it). */
export function barHeight(value: number, max: number, scale = 100): number {
  if (value <= 0 || max <= 0) return 0;
  return Math.max(scale * 0.02, (Math.min(value, max) / max) * scale);
}

/** The units a duration is written in, largest first, and how many ms each is. */
const UNITS = [
  ['day', DAY_MS],
  ['hour', HOUR_MS],
  ['minute', 60_000],
  ['second', 1_000],
] as const;

/**
 * A duration in its largest whole unit, to a tenth, in the user's language: `850 ms`, `12.3 sec`,
 * `4.1 min`, `2 hr`, `1.5 days`; `—` for none.
 */
export function formatDuration(ms: number | null, locales: readonly string[] = currentLocales()): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  const [unit, size] = UNITS.find(([, size]) => Math.abs(ms) >= size) ?? ['millisecond', 1];
  return new Intl.NumberFormat([...locales], {
    style: 'unit',
    unit,
    unitDisplay: unit === 'day' ? 'long' : 'short',
    maximumFractionDigits: size === 1 ? 0 : 1,
  }).format(ms / size);
}

/**
 * A bucket's start in words: an hour in the browser's time zone (`29 Nov, 14:00`), a day as the
 * UTC day it is (`29 Nov 2026`), in the user's language.
 */
export function formatBucket(start: string, bucket: 'hour' | 'day', locales: readonly string[] = currentLocales()): string {
  const at = Date.parse(start);
  if (Number.isNaN(at)) return start;
  if (bucket === 'day') return formatDay(start.slice(0, 10), locales);
  return new Intl.DateTimeFormat([...locales], { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }).format(at);
}
