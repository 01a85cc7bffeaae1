/**
 * Glob patterns for event keys and the `glob()` filter function: `*` matches any run of
 * characters (dots included), `?` one character, `[abc]` / `[a-z]` / `[!a-z]` a set.
 * Case-sensitive. Matching walks the subject once per star at most (the classic
 * two-pointer algorithm), so no pattern can cause exponential backtracking.
 * @module
 */

type GlobToken =
  | { kind: 'literal'; char: string }
  | { kind: 'any' }
  | { kind: 'star' }
  | { kind: 'set'; negated: boolean; ranges: [string, string][] };

export interface CompiledGlob {
  readonly pattern: string;
  /** True when the pattern has no wildcard: it matches only itself. */
  readonly literal: boolean;
  matches(subject: string): boolean;
}

const MAX_CACHE = 1024;
const cache = new Map<string, CompiledGlob>();

/** Compiles (and caches) a glob pattern. */
export function compileGlob(pattern: string): CompiledGlob {
  let compiled = cache.get(pattern);
  if (compiled) return compiled;
  const tokens = tokenize(pattern);
  const literal = tokens.every((token) => token.kind === 'literal');
  compiled = {
    pattern,
    literal,
    matches: literal ? (subject) => subject === pattern : (subject) => matchTokens(tokens, [...subject]),
  };
  if (cache.size >= MAX_CACHE) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, compiled);
  return compiled;
}

/** Whether `subject` matches the glob `pattern`. */
export const globMatch = (subject: string, pattern: string): boolean => compileGlob(pattern).matches(subject);

/** Whether a string contains glob wildcards. */
export const hasGlobWildcard = (pattern: string): boolean => !compileGlob(pattern).literal;

function tokenize(pattern: string): GlobToken[] {
  const chars = [...pattern];
  const tokens: GlobToken[] = [];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as string;
    if (char === '*') {
      // Consecutive stars mean the same as one.
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === '?') {
      tokens.push({ kind: 'any' });
    } else if (char === '[') {
      const set = parseSet(chars, i + 1);
      if (set) {
        tokens.push(set.token);
        i = set.end;
      } else {
        tokens.push({ kind: 'literal', char });
      }
    } else {
      tokens.push({ kind: 'literal', char });
    }
  }
  return tokens;
}

/** Parses a set starting after `[`; an unclosed `[` is a literal. */
function parseSet(chars: string[], start: number): { token: GlobToken; end: number } | null {
  let i = start;
  const negated = chars[i] === '!' || chars[i] === '^';
  if (negated) i++;
  const ranges: [string, string][] = [];
  // A `]` right after the opening bracket is a member, not the end.
  let first = true;
  while (i < chars.length) {
    const char = chars[i] as string;
    if (char === ']' && !first) return { token: { kind: 'set', negated, ranges }, end: i };
    first = false;
    if (chars[i + 1] === '-' && chars[i + 2] !== undefined && chars[i + 2] !== ']') {
      ranges.push([char, chars[i + 2] as string]);
      i += 3;
    } else {
      ranges.push([char, char]);
      i++;
    }
  }
  return null;
}

function tokenMatches(token: GlobToken, char: string): boolean {
  switch (token.kind) {
    case 'literal':
      return token.char === char;
    case 'any':
      return true;
    case 'set': {
      const inSet = token.ranges.some(([low, high]) => char >= low && char <= high);
      return inSet !== token.negated;
    }
    case 'star':
      return false;
  }
}

function matchTokens(tokens: GlobToken[], subject: string[]): boolean {
  let t = 0;
  let s = 0;
  let starToken = -1;
  let starSubject = 0;
  while (s < subject.length) {
    const token = tokens[t];
    if (token?.kind === 'star') {
      starToken = t++;
      starSubject = s;
    } else if (token && tokenMatches(token, subject[s] as string)) {
      t++;
      s++;
    } else if (starToken >= 0) {
      // Let the last star absorb one more character and retry from there.
      t = starToken + 1;
      s = ++starSubject;
    } else {
      return false;
    }
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}
