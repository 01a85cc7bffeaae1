import { describe, expect, it } from 'vitest';
import { deeperThan, fromJsonb, fromText, MAX_JSONB_DEPTH, toJsonb, toText } from './json.js';

/** Strings `jsonb` and `text` refuse, and strings the escaping must leave alone or tell apart. */
const AWKWARD = [
  '\u0000',
  'a\u0000b',
  '\\\u0000',
  '\\\\\u0000',
  '\u0000\u0000',
  '\uffff',
  '\uffff0',
  '\uffff\u0000',
  'x\uffff\uffffy',
  '\ud800',
  '\udfff',
  'x\ud800y',
  'x\udc00y',
  '\udc00\ud800',
  '\ud800\ud800\udc00',
  'end \udbff',
  '\udc00 start',
  '\uffffd800',
  '\uffffj',
  '\uffff\ud800',
  '\\ud800',
  '\\\ud800',
  '\\u0000',
  '"\ud800"',
  'pair 🎉 \ud83d\ude00',
];

/** No lone surrogates (`String.prototype.isWellFormed`, beyond the ES2023 lib). */
function wellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/** Nested `depth` levels, alternating arrays and objects, around `leaf`. */
function nested(depth: number, leaf: unknown = 'leaf'): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { k: value, n: level };
  return value;
}

/** Deep equality without recursion (vitest's recursion overflows on very deep values). */
function sameJson(a: unknown, b: unknown): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null || Array.isArray(x) !== Array.isArray(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(y, key)) return false;
      pending.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

/** A tiny deterministic PRNG, so the fuzz cases are the same every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('toJsonb / fromJsonb', () => {
  it('leaves ordinary JSON exactly as JSON.stringify writes it', () => {
    const value = { a: 'text', b: [1, 2.5, null, true], c: { 'd\\e': '\\u0000 as text', quote: '"' }, emoji: '🎉' };
    expect(toJsonb(value)).toBe(JSON.stringify(value));
    expect(fromJsonb(toJsonb(value))).toEqual(value);
  });

  it('keeps U+0000 and lone surrogates out of the text, and brings them back', () => {
    for (const text of AWKWARD) {
      const stored = toJsonb({ [text]: [text] });
      expect(stored).not.toMatch(/(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/);
      expect(wellFormed(stored)).toBe(true);
      expect(fromJsonb(stored)).toEqual({ [text]: [text] });
    }
  });

  it('keeps an escaped backslash followed by "u0000" or "ud800" as text', () => {
    for (const value of [{ text: '\\u0000' }, { text: '\\ud800' }, { text: '\\\\udfff' }]) {
      expect(toJsonb(value)).toBe(JSON.stringify(value));
      expect(fromJsonb(toJsonb(value))).toEqual(value);
    }
  });

  it('round-trips random strings of the characters that matter', () => {
    const alphabet = ['\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\uffff', '0', 'd', 'j', '8', 'c', '\\', 'u', '"', 'a', '🎉', '\u0001'];
    const next = random(7);
    for (let n = 0; n < 3000; n += 1) {
      let text = '';
      const length = Math.floor(next() * 12);
      for (let i = 0; i < length; i += 1) text += alphabet[Math.floor(next() * alphabet.length)];
      const stored = toJsonb({ [text]: text, list: [text, 1] });
      expect(wellFormed(stored)).toBe(true);
      expect(fromJsonb(stored)).toEqual({ [text]: text, list: [text, 1] });
      expect(wellFormed(toText(text))).toBe(true);
      expect(toText(text)).not.toContain('\u0000');
      expect(fromText(toText(text))).toBe(text);
    }
  });

  it('stores values up to the limit as JSON, deeper parts as strings, and reads any depth back', () => {
    const allowed = { request: nested(256, 'x\u0000\ud800') };
    expect(toJsonb(allowed)).not.toContain('\uffffj');
    expect(deeperThan(toJsonb(allowed), MAX_JSONB_DEPTH)).toBe(false);
    expect(fromJsonb(toJsonb(allowed))).toEqual(allowed);

    for (const depth of [MAX_JSONB_DEPTH - 1, MAX_JSONB_DEPTH, MAX_JSONB_DEPTH + 1, 600, 10_000, 100_000]) {
      const value = { id: 'r1', request: nested(depth, 'leaf \u0000 \ud800 \uffff0 \\u0000 "q"'), after: ['a\udc00'] };
      const stored = toJsonb(value);
      expect(wellFormed(stored)).toBe(true);
      expect(stored).not.toMatch(/(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/);
      // What PostgreSQL parses stays within the limit.
      expect(deeperThan(stored, MAX_JSONB_DEPTH)).toBe(false);
      expect(JSON.parse(stored)).toMatchObject({ id: 'r1' });
      expect(sameJson(fromJsonb(stored), value)).toBe(true);
    }
  });

  it('writes deep values as JSON.stringify would: undefined members, toJSON, numbers, arrays of records', () => {
    const date = new Date(Date.UTC(2025, 0, 1));
    const member = { a: undefined, b: [undefined, () => 1, Number.NaN, -0, 1e21], c: date, d: new String('s\u0000'), e: null, f: false };
    const value = [
      { id: 'x', deep: nested(700, member) },
      { id: 'y', deep: nested(3) },
    ];
    expect(sameJson(fromJsonb(toJsonb(value)), JSON.parse(JSON.stringify(value)))).toBe(true);
    expect(fromJsonb(toJsonb(nested(700, member)))).toEqual(JSON.parse(JSON.stringify(nested(700, member))));
  });

  it('refuses what JSON.stringify refuses', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => toJsonb(cycle)).toThrow(TypeError);
    expect(() => toJsonb({ n: 1n })).toThrow(TypeError);
    expect(() => toJsonb(undefined)).toThrow(TypeError);
  });
});

describe('toText / fromText', () => {
  it('leaves ordinary strings alone', () => {
    for (const text of ['', 'org_1', 'source-a', 'dev@example.com', 'pair 🎉', '\\u0000']) {
      expect(toText(text)).toBe(text);
      expect(fromText(text)).toBe(text);
    }
  });

  it('escapes as the stored JSON does, so data->>field matches a column or parameter', () => {
    for (const text of AWKWARD) {
      // JSON.parse of the stored text without restoring it is what `data->>'k'` gives.
      expect((JSON.parse(toJsonb({ k: text })) as { k: string }).k).toBe(toText(text));
      expect(fromText(toText(text))).toBe(text);
      expect(wellFormed(toText(text))).toBe(true);
    }
    expect(toText('x\u0000y\ud800z\uffff')).toBe('x\uffff0y\uffffd800z\uffff\uffff');
  });
});
