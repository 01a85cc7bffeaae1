/**
 * How the console writes dates and numbers (app/format.ts): in the user's `language` setting,
 * else the browser's languages, else English; dollars with two decimals, four under a cent, and
 * the `$` symbol in every language.
 */
import { describe, expect, it } from 'vitest';
import { formatDateTime, formatDay, formatNumber, formatPercent, formatUsd, formatUtc, resolveLocales, validLocale } from '../app/format.js';

const GB = ['en-GB'];
const US = ['en-US'];
const DE = ['de'];
// An instant is written in the browser's time zone (here the process's): UTC, so the hours are known.
process.env.TZ = 'UTC';

/** Intl separates some parts with no-break spaces (`12,34 $`): compared with plain ones. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('the console’s formats', () => {
  it('takes the user’s language first, then the browser’s, then English, leaving out tags Intl refuses', () => {
    expect(resolveLocales('de', ['en-GB', 'fr'])).toEqual(['de', 'en-GB', 'fr', 'en']);
    expect(resolveLocales(null, ['en-GB'])).toEqual(['en-GB', 'en']);
    expect(resolveLocales('  ', [])).toEqual(['en']);
    expect(resolveLocales('en_US', ['not a tag', 'pt-br'])).toEqual(['pt-BR', 'en']);
    expect(resolveLocales('zh-CN', ['zh-CN'])).toEqual(['zh-CN', 'en']);
    expect(validLocale('ko-KR')).toBe('ko-KR');
    expect(validLocale('x')).toBeNull();
  });

  it('writes dates and times the way each language does', () => {
    const at = '2026-11-28T14:03:09Z';
    expect(plain(formatDateTime(at, DE))).toBe('28.11.2026, 14:03:09');
    expect(plain(formatDateTime(at, GB))).toBe('28 Nov 2026, 14:03:09');
    expect(plain(formatDateTime(at, US))).toBe('Nov 28, 2026, 2:03:09 PM');
    expect(formatDateTime('not a time', DE)).toBe('not a time');
    expect(formatDay('2026-06-03', DE)).toBe('03.06.2026');
    expect(formatDay('2026-06-03', GB)).toBe('3 Jun 2026');
    expect(formatDay('2026-06-03', US)).toBe('Jun 3, 2026');
    expect(formatUtc('2026-06-30T23:30:00-02:00', GB)).toBe('1 Jul 2026, 01:30 UTC');
    expect(formatUtc('2026-06-30T23:30:00-02:00', DE)).toBe('01.07.2026, 01:30 UTC');
  });

  it('writes numbers, shares and dollars with each language’s separators', () => {
    expect(formatNumber(1234.5, DE)).toBe('1.234,5');
    expect(formatNumber(1234.5, US)).toBe('1,234.5');
    expect(formatNumber(40_000, GB)).toBe('40,000');
    expect(plain(formatPercent(0.9804, DE))).toBe('98 %');
    expect(formatPercent(0.9804, GB)).toBe('98%');
    expect(plain(formatUsd(12.34, DE))).toBe('12,34 $');
    expect(formatUsd(12.34, GB)).toBe('$12.34');
    expect(formatUsd(1234.5, US)).toBe('$1,234.50');
  });

  it('writes dollars with two decimals, four under a cent, never a spend as $0.00', () => {
    expect(formatUsd(0, US)).toBe('$0.00');
    expect(formatUsd(0.0918, US)).toBe('$0.09');
    expect(formatUsd(0.0018, US)).toBe('$0.0018');
    expect(plain(formatUsd(0.0018, DE))).toBe('0,0018 $');
    expect(formatUsd(0.00004, US)).toBe('$0.0000');
    expect(formatUsd(0.01, US)).toBe('$0.01');
  });
});
