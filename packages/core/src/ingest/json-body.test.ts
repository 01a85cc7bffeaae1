import { describe, expect, it } from 'vitest';
import { PlatformError } from '../kernel/errors.js';
import { MAX_JSON_DEPTH, jsonNestingExceeds, parseJsonText } from './json-body.js';

const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('JSON nesting limit', () => {
  it('accepts MAX_JSON_DEPTH levels and refuses one more, for arrays and objects', () => {
    expect(MAX_JSON_DEPTH).toBe(128);
    expect(jsonNestingExceeds(arrays(128), 128)).toBe(false);
    expect(jsonNestingExceeds(arrays(129), 128)).toBe(true);
    expect(jsonNestingExceeds(objects(128), 128)).toBe(false);
    expect(jsonNestingExceeds(objects(129), 128)).toBe(true);
    expect(jsonNestingExceeds(`[${arrays(127)}, {"b": ${arrays(126)}}]`, 128)).toBe(false);
    expect(jsonNestingExceeds(`[${arrays(127)}, {"b": ${arrays(127)}}]`, 128)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingExceeds(JSON.stringify({ text: '['.repeat(1000) }), 2)).toBe(false);
    expect(jsonNestingExceeds(JSON.stringify({ text: `say \\"[[[[\\" and "{{{{"` }), 2)).toBe(false);
    expect(jsonNestingExceeds(JSON.stringify({ text: 'ends with a backslash\\', deep: [[[1]]] }), 3)).toBe(true);
    expect(jsonNestingExceeds('{"unterminated": "[[[[[', 2)).toBe(false);
  });

  it('refuses over-deep bodies with a 400 before parsing, and keeps lone surrogates', () => {
    const refused = (() => {
      try {
        parseJsonText(arrays(100_000));
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(PlatformError);
    expect((refused as PlatformError).status).toBe(400);
    expect((refused as PlatformError).message).toMatch(/nested deeper than 128 levels/);
    expect(parseJsonText('{"a": "x\\ud800y"}')).toEqual({ a: 'x\ud800y' });
    expect(() => parseJsonText(arrays(20), 10)).toThrow(/deeper than 10 levels/);
  });

  it('scans a large body in linear time', () => {
    const big = JSON.stringify({ items: Array.from({ length: 20_000 }, (_, i) => ({ id: i, text: `a "quoted" \\ [${i}] {x}`.repeat(10) })) });
    const started = performance.now();
    expect(jsonNestingExceeds(big, 128)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
    const backslashes = `"${'\\\\'.repeat(200_000)}"`;
    expect(jsonNestingExceeds(backslashes, 1)).toBe(false);
  });
});
