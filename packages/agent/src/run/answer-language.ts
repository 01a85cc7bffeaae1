/**
 * The owner's `language` setting (a BCP 47 tag such as `de`, `pt-BR` or `zh-CN`) as the model is
 * told it: the language named in English and in itself ("German (Deutsch)"), so a model that
 * does not know the tag still knows the language. A tag that is not BCP 47 means none: the agent
 * keeps to English (the settings API refuses such a tag; one stored before is ignored here).
 * @module
 */

export interface AnswerLanguage {
  /** The tag, canonical (`pt-BR`, `zh-CN`). */
  tag: string;
  /** In English, then in itself when that differs: `German (Deutsch)`, `English`. */
  name: string;
}

export function answerLanguage(setting: string | null | undefined): AnswerLanguage | null {
  const trimmed = setting?.trim();
  if (!trimmed) return null;
  let tag: string;
  try {
    [tag = ''] = Intl.getCanonicalLocales(trimmed);
  } catch {
    return null;
  }
  // A well-formed tag whose language is no ISO 639 code (`German`) names no language.
  if (!tag || !/^[a-z]{2,3}$/.test(new Intl.Locale(tag).language)) return null;
  const english = nameOf(tag, 'en');
  const native = nameOf(tag, tag);
  const name = english && native && native.toLocaleLowerCase(tag) !== english.toLowerCase() ? `${english} (${native})` : (english ?? native ?? tag);
  return { tag, name };
}

function nameOf(tag: string, inLanguage: string): string | null {
  try {
    const name = new Intl.DisplayNames([inLanguage], { type: 'language', fallback: 'none' }).of(tag);
    return name && name !== tag ? name : null;
  } catch {
    return null;
  }
}
