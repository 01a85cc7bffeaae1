import { describe, expect, it } from 'vitest';
import { fromJsonb, toJsonb } from './json.js';

describe('toJsonb / fromJsonb', () => {
  it('leaves ordinary JSON exactly as JSON.stringify writes it', () => {
    const value = { a: 'text', b: [1, 2.5, null, true], c: { 'd\\e': '\\u0000 as text', quote: '"' } };
    expect(toJsonb(value)).toBe(JSON.stringify(value));
    expect(fromJsonb(toJsonb(value))).toEqual(value);
  });

  it('keeps U+0000 out of the text, and brings it back', () => {
    for (const text of ['\u0000', 'a\u0000b', '\\\u0000', '\\\\\u0000', '\u0000\u0000', '\uffff', '\uffff0', '\uffff\u0000', 'x\uffff\uffffy']) {
      const stored = toJsonb({ [text]: [text] });
      expect(stored).not.toContain('\\u0000');
      expect(fromJsonb(stored)).toEqual({ [text]: [text] });
    }
  });

  it('keeps an escaped backslash followed by "u0000" as text', () => {
    const value = { text: '\\u0000' };
    expect(toJsonb(value)).toBe(JSON.stringify(value));
    expect(fromJsonb(toJsonb(value))).toEqual(value);
  });
});
