/**
 * The values the hostile-values conformance groups store and look up: strings JSON allows and
 * a backend may not (lone surrogates, U+0000, look-alikes of an adapter's escaping), keys no
 * record has, and values nested deeper than any backend nests natively — with a comparison
 * that does not recurse, since vitest's would overflow on them.
 * @module
 */
import { uniqueId } from '../fixtures/records.js';

/**
 * Strings with lone surrogates (a high one alone, a low one alone, a reversed pair, at either end),
 * U+0000, and look-alikes of an escaping an adapter might use (U+FFFF followed by "0", "d800",
 * "j"; a backslash escape spelled out as text), beside a proper surrogate pair.
 */
export const HOSTILE_TEXTS: readonly string[] = [
  'high \ud800 alone',
  'low \udc00 alone',
  'reversed \udc00\ud800 pair',
  '\ud800',
  '\udfff',
  '\udbffat the start',
  'at the end\ud800',
  '\udc00at the start',
  'at the end\udfff',
  'nul \u0000 inside',
  '\u0000',
  '\u0000\ud800\u0000\udc00',
  'a pair \ud83d\ude00 then \ud800 alone',
  'look-alikes \uffff \uffff0 \uffffd800 \uffffj \uffff\uffff',
  'escapes as text \\u0000 \\ud800 \\\\u0000',
];

/** Suffixes that make a key no record has, in every way a backend may trip over. */
export const KEY_SUFFIXES: readonly string[] = ['\u0000', '\ud800', '\udc00', '\udc00\ud800', '\u0000\ud800\uffff', '\uffff0'];

/** Fresh keys, unknown to the store, each with U+0000 or a lone surrogate (at the end, and at the start). */
export function unknownKeys(prefix: string): string[] {
  return KEY_SUFFIXES.flatMap((suffix) => [`${uniqueId(prefix)}${suffix}`, `${suffix}${uniqueId(prefix)}`]);
}

/** Nested `depth` levels deep, arrays and objects in turn, around `leaf`. Built without recursion. */
export function nestedValue(depth: number, leaf: unknown = 'leaf'): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { level, inner: value };
  return value;
}

/** JSON text nested `depth` levels deep, built without recursion. */
export function nestedJsonText(depth: number): string {
  const half = Math.floor(depth / 2);
  return `${'{"a":['.repeat(half)}"leaf \\u0000 \\ud800"${']}'.repeat(half)}`;
}

/** Deep equality of JSON values without recursion (vitest's `toEqual` recurses). */
export function sameJson(a: unknown, b: unknown): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(y, key)) return false;
      pending.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}
