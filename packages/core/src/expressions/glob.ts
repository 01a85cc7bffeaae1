/**
 * Glob patterns for event keys and the `glob()` filter function: `*` matches any run of
 * characters (dots included), `?` one character (a code point), `[abc]` / `[a-z]` / `[!a-z]` a
 * set. Case-sensitive.
 *
 * Matching reads the subject in place, by UTF-16 code units with surrogate pairs taken as one
 * character; it never copies or splits the subject. The pattern is split at its stars into
 * segments: the first is matched at the start, the last at the end, and each one in between at
 * its leftmost place after the previous one (which is always the best choice), so there is no
 * backtracking at all. Segments without `?` or sets are found with `String#indexOf`. A
 * segment with `?` or a set is tried at each position in turn, which costs its length per
 * position at worst; callers that must bound that (filters) pass a {@link GlobBudget}.
 * @module
 */

/**
 * Receives the work done by a match, so a caller can bound it. Work is in steps of about 15-20
 * ns: {@link COMPARISONS_PER_STEP} characters compared in a loop (5-10 ns each), or
 * {@link SCANNED_CHARS_PER_STEP} code units searched with `indexOf`.
 */
export interface GlobBudget {
  /** Called as the match goes (every few thousand steps' worth) and once at the end; may throw to abort. */
  charge(steps: number): void;
}

export const COMPARISONS_PER_STEP = 2;
export const SCANNED_CHARS_PER_STEP = 256;

/**
 * One pattern character, as a number that orders like the string comparison of the character:
 * `unit << 16` for a character of one code unit, `(high << 16) + low` for a surrogate pair.
 */
type CharKey = number;

type GlobToken =
  | { kind: 'literal'; key: CharKey }
  | { kind: 'any' }
  | { kind: 'star' }
  | { kind: 'set'; negated: boolean; ranges: readonly (readonly [CharKey, CharKey])[] };

/** The tokens between two stars (or the pattern's start or end). */
interface Segment {
  readonly tokens: readonly Exclude<GlobToken, { kind: 'star' }>[];
  /** The segment as a string when all its tokens are literals, else `null`. */
  readonly literal: string | null;
}

export interface CompiledGlob {
  readonly pattern: string;
  /** True when the pattern has no wildcard: it matches only itself. */
  readonly literal: boolean;
  matches(subject: string, budget?: GlobBudget): boolean;
}

const MAX_CACHE = 1024;
/** Longer patterns (which only `glob()` over payload values can give) are compiled but not cached. */
const MAX_CACHED_PATTERN_LENGTH = 1024;
/** How many steps of work a match does between two budget charges. */
const CHARGE_EVERY = 1024;
const cache = new Map<string, CompiledGlob>();

/** Compiles (and caches) a glob pattern. */
export function compileGlob(pattern: string): CompiledGlob {
  let compiled = cache.get(pattern);
  if (compiled) return compiled;
  const tokens = tokenize(pattern);
  const literal = tokens.every((token) => token.kind === 'literal');
  const segments = literal ? null : splitSegments(tokens);
  compiled = {
    pattern,
    literal,
    matches: segments ? (subject, budget) => matchSegments(segments, subject, budget) : (subject) => subject === pattern,
  };
  if (pattern.length <= MAX_CACHED_PATTERN_LENGTH) {
    if (cache.size >= MAX_CACHE) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, compiled);
  }
  return compiled;
}

/** Code units searched per `indexOf` call by {@link indexOfWithin}. */
const SEARCH_CHUNK = 1 << 16;

/**
 * `subject.indexOf(needle, from)`, restricted to matches ending by `limit`, searching a chunk at
 * a time and reporting each chunk to `sink` (which may throw to stop): a native
 * search costs from 0.01 to about 7 ns a character depending on the text, so a long one is
 * split where a caller can check its clock. `sink.searched` receives each chunk's length.
 */
export function indexOfWithin(subject: string, needle: string, from: number, limit: number, sink: SearchSink): number {
  if (limit - from <= SEARCH_CHUNK) {
    const index = subject.indexOf(needle, from);
    sink.searched(Math.max(0, limit - from));
    return index >= 0 && index + needle.length <= limit ? index : -1;
  }
  for (let start = from; start + needle.length <= limit; start += SEARCH_CHUNK) {
    // Chunks overlap by the needle's length less one, so no match is missed at a seam.
    const end = Math.min(limit, start + SEARCH_CHUNK + needle.length - 1);
    const index = subject.slice(start, end).indexOf(needle);
    sink.searched(end - start);
    if (index >= 0) return start + index;
  }
  return -1;
}

/** Told how much {@link indexOfWithin} has searched; may throw to stop it. */
export interface SearchSink {
  searched(codeUnits: number): void;
}

/** Whether `subject` matches the glob `pattern`. */
export const globMatch = (subject: string, pattern: string, budget?: GlobBudget): boolean => compileGlob(pattern).matches(subject, budget);

/** Whether a string contains glob wildcards. */
export const hasGlobWildcard = (pattern: string): boolean => !compileGlob(pattern).literal;

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** Code units of the character at `index` (1, or 2 for a surrogate pair); `index` < length. */
function widthAt(text: string, index: number): number {
  return isHigh(text.charCodeAt(index)) && index + 1 < text.length && isLow(text.charCodeAt(index + 1)) ? 2 : 1;
}

function keyAt(text: string, index: number, width: number): CharKey {
  const unit = text.charCodeAt(index) * 0x10000;
  return width === 2 ? unit + text.charCodeAt(index + 1) : unit;
}

/** Whether `index` falls between two characters (not inside a surrogate pair). */
const isBoundary = (text: string, index: number): boolean =>
  index <= 0 || index >= text.length || !(isLow(text.charCodeAt(index)) && isHigh(text.charCodeAt(index - 1)));

function tokenize(pattern: string): GlobToken[] {
  const chars: CharKey[] = [];
  for (let i = 0; i < pattern.length; ) {
    const width = widthAt(pattern, i);
    chars.push(keyAt(pattern, i, width));
    i += width;
  }
  const tokens: GlobToken[] = [];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as CharKey;
    if (char === STAR) {
      // Consecutive stars mean the same as one.
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === QUESTION) {
      tokens.push({ kind: 'any' });
    } else if (char === OPEN) {
      const set = parseSet(chars, i + 1);
      if (set) {
        tokens.push(set.token);
        i = set.end;
      } else {
        tokens.push({ kind: 'literal', key: char });
      }
    } else {
      tokens.push({ kind: 'literal', key: char });
    }
  }
  return tokens;
}

const keyOf = (char: string): CharKey => char.charCodeAt(0) * 0x10000;
const STAR = keyOf('*');
const QUESTION = keyOf('?');
const OPEN = keyOf('[');
const CLOSE = keyOf(']');
const BANG = keyOf('!');
const CARET = keyOf('^');
const DASH = keyOf('-');

/** Parses a set starting after `[`; an unclosed `[` is a literal. */
function parseSet(chars: CharKey[], start: number): { token: GlobToken; end: number } | null {
  let i = start;
  const negated = chars[i] === BANG || chars[i] === CARET;
  if (negated) i++;
  const ranges: [CharKey, CharKey][] = [];
  // A `]` right after the opening bracket is a member, not the end.
  let first = true;
  while (i < chars.length) {
    const char = chars[i] as CharKey;
    if (char === CLOSE && !first) return { token: { kind: 'set', negated, ranges }, end: i };
    first = false;
    if (chars[i + 1] === DASH && chars[i + 2] !== undefined && chars[i + 2] !== CLOSE) {
      ranges.push([char, chars[i + 2] as CharKey]);
      i += 3;
    } else {
      ranges.push([char, char]);
      i++;
    }
  }
  return null;
}

function splitSegments(tokens: GlobToken[]): Segment[] {
  const segments: Segment[] = [];
  let current: Exclude<GlobToken, { kind: 'star' }>[] = [];
  const close = () => {
    const literal = current.every((token) => token.kind === 'literal') ? current.map((token) => keyToString((token as { key: CharKey }).key)).join('') : null;
    segments.push({ tokens: current, literal });
    current = [];
  };
  for (const token of tokens) {
    if (token.kind === 'star') close();
    else current.push(token);
  }
  close();
  return segments;
}

function keyToString(key: CharKey): string {
  const high = Math.floor(key / 0x10000);
  const low = key % 0x10000;
  return low === 0 ? String.fromCharCode(high) : String.fromCharCode(high, low);
}

function tokenMatches(token: Exclude<GlobToken, { kind: 'star' }>, key: CharKey): boolean {
  switch (token.kind) {
    case 'literal':
      return token.key === key;
    case 'any':
      return true;
    case 'set': {
      const { ranges } = token;
      let inSet = false;
      for (let i = 0; i < ranges.length; i++) {
        const range = ranges[i] as readonly [CharKey, CharKey];
        if (key >= range[0] && key <= range[1]) {
          inSet = true;
          break;
        }
      }
      return inSet !== token.negated;
    }
  }
}

/** Counts the work of one match and hands it to the budget now and then. */
class Work implements SearchSink {
  private comparisons = 0;
  private scanned = 0;
  constructor(private readonly budget: GlobBudget | undefined) {}
  compared(count: number): void {
    if (!this.budget) return;
    this.comparisons += count;
    if (this.comparisons >= CHARGE_EVERY * COMPARISONS_PER_STEP) this.flush();
  }
  searched(codeUnits: number): void {
    if (!this.budget) return;
    this.scanned += codeUnits;
    if (this.scanned >= CHARGE_EVERY * SCANNED_CHARS_PER_STEP) this.flush();
  }
  flush(): void {
    if (!this.budget) return;
    const steps = Math.ceil(this.comparisons / COMPARISONS_PER_STEP + this.scanned / SCANNED_CHARS_PER_STEP);
    this.comparisons = 0;
    this.scanned = 0;
    if (steps > 0) this.budget.charge(steps);
  }
}

/**
 * Matches a segment at `start` (a character boundary). Returns where the match ends, or -1.
 * Never reads at or past `limit`.
 */
function matchAt(segment: Segment, subject: string, start: number, limit: number, work: Work): number {
  const { tokens } = segment;
  let s = start;
  for (let t = 0; t < tokens.length; t++) {
    if (s >= limit) return -1;
    const width = widthAt(subject, s);
    if (s + width > limit) return -1;
    if (!tokenMatches(tokens[t] as Exclude<GlobToken, { kind: 'star' }>, keyAt(subject, s, width))) {
      work.compared(t + 1);
      return -1;
    }
    s += width;
  }
  work.compared(tokens.length);
  return s;
}

/** The leftmost match of a segment starting at or after `from` and ending by `limit`: its end, or -1. */
function findSegment(segment: Segment, subject: string, from: number, limit: number, work: Work): number {
  const { literal } = segment;
  if (literal !== null) {
    let index = indexOfWithin(subject, literal, from, limit, work);
    while (index >= 0) {
      // A match could begin or end inside a surrogate pair only if the literal begins with a
      // lone low surrogate or ends with a lone high one; such a match does not count.
      if (isBoundary(subject, index) && isBoundary(subject, index + literal.length)) return index + literal.length;
      index = indexOfWithin(subject, literal, index + 1, limit, work);
    }
    return -1;
  }
  // Try each position in turn; most fail on the first token, tested here without a call.
  const first = segment.tokens[0] as Exclude<GlobToken, { kind: 'star' }>;
  let tried = 0;
  for (let s = from; s < limit; ) {
    const unit = subject.charCodeAt(s);
    const width = isHigh(unit) && s + 1 < subject.length && isLow(subject.charCodeAt(s + 1)) ? 2 : 1;
    if (tokenMatches(first, width === 1 ? unit * 0x10000 : unit * 0x10000 + subject.charCodeAt(s + 1))) {
      const end = matchAt(segment, subject, s, limit, work);
      if (end >= 0) {
        work.compared(tried);
        return end;
      }
    }
    s += width;
    if (++tried === 4096) {
      work.compared(tried);
      tried = 0;
    }
  }
  work.compared(tried);
  return -1;
}

/** The index where the last `count` characters of `subject` begin, or -1 if it has fewer. */
function startOfLast(subject: string, count: number, floor: number): number {
  let index = subject.length;
  for (let n = 0; n < count; n++) {
    if (index <= floor) return -1;
    index -= index >= 2 && isLow(subject.charCodeAt(index - 1)) && isHigh(subject.charCodeAt(index - 2)) ? 2 : 1;
  }
  return index;
}

/** The work counter of matches without a budget: it counts nothing, so one serves them all. */
const UNCOUNTED = new Work(undefined);

function matchSegments(segments: readonly Segment[], subject: string, budget: GlobBudget | undefined): boolean {
  const work = budget ? new Work(budget) : UNCOUNTED;
  try {
    const first = segments[0] as Segment;
    if (segments.length === 1) return matchAt(first, subject, 0, subject.length, work) === subject.length;
    let position = matchAt(first, subject, 0, subject.length, work);
    if (position < 0) return false;
    const last = segments[segments.length - 1] as Segment;
    const lastStart = startOfLast(subject, last.tokens.length, position);
    if (lastStart < 0 || lastStart < position) return false;
    if (matchAt(last, subject, lastStart, subject.length, work) !== subject.length) return false;
    for (let i = 1; i < segments.length - 1; i++) {
      position = findSegment(segments[i] as Segment, subject, position, lastStart, work);
      if (position < 0) return false;
    }
    return true;
  } finally {
    work.flush();
  }
}
