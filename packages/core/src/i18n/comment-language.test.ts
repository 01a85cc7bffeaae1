/**
 * Which language the platform's comments take for an owner's `language` setting, and how their
 * numbers, sums and dates read in it.
 */
import { describe, expect, it } from 'vitest';
import { commentLanguage } from './comment-language.js';
import { RUN_COMMENT_PHRASES, type CommentLocale, type RunCommentPhrases } from './run-comment-phrases.js';

/** Intl separates some figures with no-break spaces: compared with plain ones. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('commentLanguage', () => {
  it("takes the catalog of the setting's language, region or not", () => {
    const cases: Array<[string | null, CommentLocale]> = [
      ['de', 'de'],
      ['de-AT', 'de'],
      ['fr-CA', 'fr'],
      ['es', 'es'],
      ['pt-BR', 'pt'],
      ['it', 'it'],
      ['ja', 'ja'],
      ['ko-KR', 'ko'],
      ['zh-CN', 'zh-CN'],
      ['zh', 'zh-CN'],
      ['zh-Hans', 'zh-CN'],
      ['zh-SG', 'zh-CN'],
      ['en-GB', 'en'],
    ];
    for (const [setting, locale] of cases) expect(commentLanguage(setting).locale, String(setting)).toBe(locale);
  });

  it('is English for none, for a tag that is not one, and for languages the catalog has not (traditional Chinese among them)', () => {
    for (const setting of [null, undefined, '', 'not a tag', 'fi', 'uk', 'ar', 'zh-TW', 'zh-Hant', 'zh-HK'])
      expect(commentLanguage(setting)).toMatchObject({ locale: 'en', tag: 'en' });
  });

  it("formats for the owner's own tag, or as English when the comment falls back to it", () => {
    const de = commentLanguage('de');
    expect(de.count(60_000)).toBe('60.000');
    expect(plain(de.percent(0.8))).toBe('80 %');
    expect(plain(de.usd(0.25))).toBe('0,25 $');
    expect(plain(de.usd(0.0042))).toBe('0,0042 $');
    expect(de.moment(new Date('2026-07-01T00:00:00Z'))).toBe('1. Juli 2026 um 00:00 UTC');

    const en = commentLanguage(null);
    expect([en.count(60_000), en.percent(0.8), en.usd(12), plain(en.moment(new Date('2026-07-01T00:00:00Z')))]).toEqual([
      '60,000',
      '80%',
      '$12.00',
      'July 1, 2026 at 12:00 AM UTC',
    ]);
    expect(commentLanguage('de-CH').tag).toBe('de-CH');
    expect(commentLanguage('pt-BR').tag).toBe('pt-BR');
    expect(commentLanguage('fi').count(1234.5)).toBe('1,234.5');
  });

  it('every catalog says every phrase, in its own words', () => {
    const english = RUN_COMMENT_PHRASES.en;
    const sample = (phrases: RunCommentPhrases) => [
      phrases.outcome.COMPLETED('N'),
      phrases.outcome.FAILED('N'),
      phrases.outcome.CANCELLED('N'),
      phrases.outcome.SKIPPED('N'),
      phrases.noAnswer,
      phrases.cut('7'),
      phrases.attempts('3'),
      phrases.run('r'),
      phrases.onIt('N'),
      phrases.solvability('80%', 's'),
      phrases.held('N', 't'),
      phrases.risk('HIGH'),
      phrases.howToApprove,
      phrases.noSummary,
      phrases.notStartedBudget('$1', '$2', 'D'),
      phrases.failedChecks('c', 'abc1234', '@agent'),
    ];
    for (const [locale, phrases] of Object.entries(RUN_COMMENT_PHRASES)) {
      const said = sample(phrases);
      expect(said.every((text) => text.trim().length > 0)).toBe(true);
      if (locale === 'en') continue;
      // Nothing left in English.
      for (const [index, text] of sample(english).entries()) expect(said[index], `${locale} #${index}`).not.toBe(text);
      // The commands people type back are the same in every language.
      expect(phrases.howToApprove).toContain('`/approve`');
      expect(phrases.howToApprove).toContain('`/reject`');
      expect(phrases.failedChecks('c', 'abc1234', '@agent')).toContain('`@agent ');
    }
  });
});
