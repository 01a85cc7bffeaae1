/**
 * The language of the platform's own comments on a code host (a run's "on it", its outcome, an
 * approval request, an offer to fix failing checks): the automation owner's `language` setting
 * (a BCP 47 tag), when the phrase catalog has it — English, German, French, Spanish, Portuguese,
 * Italian, Japanese, Simplified Chinese, Korean — else English. Numbers, sums and dates in those
 * comments are formatted with `Intl` for the owner's own tag (`de-CH` writes numbers as the Swiss
 * do), or for English when the comment falls back to it.
 * @module
 */
import { RUN_COMMENT_PHRASES, type CommentLocale, type RunCommentPhrases } from './run-comment-phrases.js';

export interface CommentLanguage {
  /** The catalog's language the comment is written in. */
  locale: CommentLocale;
  /** The tag numbers and dates are formatted for: the owner's, or `en`. */
  tag: string;
  phrases: RunCommentPhrases;
  /** A count: `1,234` (en), `1.234` (de). */
  count(value: number): string;
  /** A share from 0 to 1, whole percent: `80%` (en), `80 %` (de). */
  percent(share: number): string;
  /** US dollars: `$0.25` (en), `0,25 $` (de); four places for a sum under a cent that matters. */
  usd(value: number): string;
  /** A moment, in UTC, named so: `July 1, 2026 at 12:00 AM UTC` (en). */
  moment(at: Date): string;
}

/** The comment language for an owner's `language` setting; `null`, an unknown language or a tag that is not one: English. */
export function commentLanguage(setting: string | null | undefined): CommentLanguage {
  const tag = canonical(setting);
  const locale = tag ? catalogLocaleOf(tag) : 'en';
  // The owner's own tag formats when the comment is in its language; a comment fallen back to English formats as English.
  const formatTag = tag && (locale !== 'en' || new Intl.Locale(tag).language === 'en') ? tag : 'en';
  const counts = new Intl.NumberFormat(formatTag);
  const percents = new Intl.NumberFormat(formatTag, { style: 'percent', maximumFractionDigits: 0 });
  const dollars = (digits: number) =>
    new Intl.NumberFormat(formatTag, { style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits });
  const moments = new Intl.DateTimeFormat(formatTag, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });
  return {
    locale,
    tag: formatTag,
    phrases: RUN_COMMENT_PHRASES[locale],
    count: (value) => counts.format(value),
    percent: (share) => percents.format(share),
    usd: (value) => dollars(value >= 1 || Math.abs(value * 100 - Math.round(value * 100)) < 1e-9 ? 2 : 4).format(value),
    moment: (at) => moments.format(at),
  };
}

function canonical(setting: string | null | undefined): string | null {
  const trimmed = setting?.trim();
  if (!trimmed) return null;
  try {
    return Intl.getCanonicalLocales(trimmed)[0] ?? null;
  } catch {
    return null;
  }
}

/** The catalog language for a tag: its language's, Chinese only in simplified script (`zh`, `zh-CN`, `zh-SG`, `zh-Hans`). */
function catalogLocaleOf(tag: string): CommentLocale {
  const locale = new Intl.Locale(tag);
  if (locale.language === 'zh') return locale.maximize().script === 'Hans' ? 'zh-CN' : 'en';
  return (Object.keys(RUN_COMMENT_PHRASES) as CommentLocale[]).find((known) => known === locale.language) ?? 'en';
}
