/**
 * How the console writes dates and numbers: in the signed-in user's `language` setting (read
 * from their settings at sign-in, see preferences.ts), else the browser's languages, else
 * English. Only dates and numbers follow the language: the console's own words stay English.
 *
 * The locales are kept here, set when the settings are read (`setLanguage`), so every page and
 * table cell formats the same way without passing them around. Each function also takes the
 * locales to use, so the unit tests call them without a browser.
 *
 * Pure (no DOM, no Preact).
 */

/** The last resort: Intl always has English. */
const FALLBACK = 'en';

/** A language tag Intl takes (`de`, `pt-BR`), canonical; `null` for one it refuses (`en_US`, `not a tag`). */
export function validLocale(tag: string | null | undefined): string | null {
  const trimmed = tag?.trim();
  if (!trimmed) return null;
  try {
    return Intl.getCanonicalLocales(trimmed)[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The locales to format in, best first: the user's language when it is a tag Intl takes, then
 * the browser's languages, then English. Intl uses the first of them it has data for.
 */
export function resolveLocales(language: string | null | undefined, browser: readonly string[] = []): string[] {
  const tags = [validLocale(language), ...browser.map(validLocale), FALLBACK].filter((tag): tag is string => tag !== null);
  return [...new Set(tags)];
}

/** The browser's languages (`navigator.languages`), or none outside a browser (the unit tests). */
function browserLanguages(): readonly string[] {
  const browser = (globalThis as { navigator?: { languages?: readonly string[]; language?: string } }).navigator;
  return browser?.languages ?? (browser?.language ? [browser.language] : []);
}

let current: string[] = resolveLocales(null, browserLanguages());

/** Formats in the user's `language` from now on (`null`: the browser's languages). */
export function setLanguage(language: string | null | undefined): void {
  current = resolveLocales(language, browserLanguages());
}

/** The locales dates and numbers are written in now. */
export const currentLocales = (): readonly string[] => current;

/** Intl's formatters are slow to make: one per locales and options. */
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The formatter made once for `locales` and `options`, from `cache` or by `make`. */
function cached<F>(cache: Map<string, F>, locales: readonly string[], options: object, make: () => F): F {
  const key = `${locales.join(',')}|${JSON.stringify(options)}`;
  let format = cache.get(key);
  if (!format) {
    format = make();
    cache.set(key, format);
  }
  return format;
}

const numberFormat = (locales: readonly string[], options: Intl.NumberFormatOptions) =>
  cached(numberFormats, locales, options, () => new Intl.NumberFormat([...locales], options));
const dateFormat = (locales: readonly string[], options: Intl.DateTimeFormatOptions) =>
  cached(dateFormats, locales, options, () => new Intl.DateTimeFormat([...locales], options));

/** A count or an amount: `40,000` in English, `40.000` in German. */
export const formatNumber = (value: number, locales: readonly string[] = current): string => numberFormat(locales, {}).format(value);

/**
 * Dollars (the spend ledger is in USD) with two decimals; with four when the amount is under a
 * cent (a cheap model's calls), so a spend is never shown as 0.00. The symbol is `$` in every
 * language (`$1,234.50`, `1.234,50 $`), not `US$`.
 */
export function formatUsd(amount: number, locales: readonly string[] = current): string {
  const digits = amount !== 0 && Math.abs(amount) < 0.01 ? 4 : 2;
  return numberFormat(locales, {
    style: 'currency',
    currency: 'USD',
    currencyDisplay: 'narrowSymbol',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(amount);
}

/** A share of a whole (0 to 1) in whole percent: `98%`, `98 %`. */
export const formatPercent = (share: number, locales: readonly string[] = current): string =>
  numberFormat(locales, { style: 'percent', maximumFractionDigits: 0 }).format(share);

/** An instant in the browser's time zone, to the second: `28 Nov 2026, 14:03:00`, `28.11.2026, 14:03:00`. */
export function formatDateTime(value: string, locales: readonly string[] = current): string {
  const at = Date.parse(value);
  return Number.isNaN(at) ? value : dateFormat(locales, { dateStyle: 'medium', timeStyle: 'medium' }).format(at);
}

/** A UTC calendar day (`2026-06-03`): `3 Jun 2026`, `Jun 3, 2026`, `03.06.2026`. */
export function formatDay(day: string, locales: readonly string[] = current): string {
  const at = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(at) ? day : dateFormat(locales, { dateStyle: 'medium', timeZone: 'UTC' }).format(at);
}

/** An instant in UTC, to the minute: `1 Jul 2026, 00:00 UTC`. */
export function formatUtc(value: string, locales: readonly string[] = current): string {
  const at = Date.parse(value);
  return Number.isNaN(at) ? value : `${dateFormat(locales, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(at)} UTC`;
}
