import { describe, expect, it } from 'vitest';
import { cloneJson, RECURSION_DEPTH } from './clone-json.js';

/** Arrays and objects in turn, `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = { leaf: 'x\u0000\ud800', list: [1, null, true] };
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value, level] : { level, inner: value };
  return value;
}

/**
 * Whether `copy` equals `original` with no array or object shared, walked without recursion
 * (vitest's matchers compare deep values recursively).
 */
function isDistinctCopy(original: unknown, copy: unknown): boolean {
  const pending: [unknown, unknown][] = [[original, copy]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [a, b] = pair;
    if (a === null || typeof a !== 'object') {
      if (!Object.is(a, b)) return false;
      continue;
    }
    if (a === b || typeof b !== 'object' || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
    const keys = Object.keys(a);
    const copyKeys = Object.keys(b);
    if (keys.length !== copyKeys.length || keys.some((key, n) => copyKeys[n] !== key)) return false;
    for (const key of keys) pending.push([(a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]]);
  }
  return true;
}

describe('cloneJson', () => {
  it('copies shallow and deep values alike, around the depth where it stops recursing', () => {
    for (const depth of [0, 1, RECURSION_DEPTH - 1, RECURSION_DEPTH, RECURSION_DEPTH + 1, 10_000, 100_000]) {
      const value = nested(depth);
      expect(isDistinctCopy(value, cloneJson(value))).toBe(true);
    }
  });

  it('returns primitives as they are', () => {
    for (const value of [null, 0, 'text', true]) expect(cloneJson(value)).toBe(value);
  });
});
