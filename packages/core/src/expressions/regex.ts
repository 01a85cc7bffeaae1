/**
 * The filter language's `regex(subject, pattern)`: whether `pattern` matches anywhere in
 * `subject`, in RE2 syntax, by `re2js` — an RE2 port whose matching takes time linear in the
 * subject (no backtracking), so no pattern can make a filter run for exponential time.
 * Anchor with `^` and `$`; `(?i)` makes it case-insensitive.
 *
 * Compiling costs far more than matching (about 15 µs a pattern character), so compiled
 * patterns are cached; a pattern given literally in a filter is compiled when the filter is
 * saved, so a syntax error is refused then (422), not when an event arrives.
 * @module
 */
import { RE2JS } from 're2js';

/** Longest pattern accepted, in code units. */
export const MAX_REGEX_PATTERN_LENGTH = 512;
/** Compiled patterns kept; the least recently compiled is dropped first. */
const CACHE_SIZE = 512;
/**
 * Evaluation steps charged per subject code unit matched, per started 32 pattern characters:
 * matching measured 0-15 ns a character for patterns up to 30 characters, and a step is
 * 15-20 ns (evaluation-budget.ts).
 */
const PATTERN_CHARS_PER_STEP_FACTOR = 32;
/** Steps charged for compiling a pattern, per pattern character (about 15 µs each). */
const COMPILE_STEPS_PER_CHAR = 800;

export class RegexPatternError extends Error {
  override readonly name = 'RegexPatternError';
}

const cache = new Map<string, RE2JS>();

/** Whether `pattern` is cached already (compiling it again costs nothing). */
export function isRegexCached(pattern: string): boolean {
  return cache.has(pattern);
}

/** The compiled pattern, or {@link RegexPatternError} with a message fit for a user. */
export function compileRegex(pattern: string): RE2JS {
  const cached = cache.get(pattern);
  if (cached !== undefined) return cached;
  if (pattern.length > MAX_REGEX_PATTERN_LENGTH) {
    throw new RegexPatternError(`regex pattern is longer than ${MAX_REGEX_PATTERN_LENGTH} characters`);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    throw new RegexPatternError(`invalid regex pattern ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, compiled);
  return compiled;
}

/** The evaluation steps `regex(subject, pattern)` is charged before it runs. */
export function regexSteps(subject: string, pattern: string): number {
  const matching = subject.length * Math.ceil(Math.max(pattern.length, 1) / PATTERN_CHARS_PER_STEP_FACTOR);
  const compiling = isRegexCached(pattern) ? 0 : pattern.length * COMPILE_STEPS_PER_CHAR;
  return 1 + matching + compiling;
}

/** Whether `pattern` matches anywhere in `subject`. */
export function regexMatches(subject: string, pattern: string): boolean {
  return compileRegex(pattern).test(subject);
}
