import { describe, expect, it } from 'vitest';
import { MIN_STORED_BYTES_LENGTH, TextStore } from './stored-text.js';

const long = (text: string) => text + 'x'.repeat(MIN_STORED_BYTES_LENGTH);

describe('TextStore', () => {
  it('keeps short texts and texts with a lone surrogate as strings, and long ones as their UTF-8 bytes', () => {
    const texts = new TextStore();
    expect(texts.store('{"short": true}')).toBe('{"short": true}');
    expect(texts.store('x'.repeat(MIN_STORED_BYTES_LENGTH - 1))).toBeTypeOf('string');
    for (const lone of [long('\ud800'), long('\udfff'), `${long('')}\ud83d`, long('\ude00\ud83d')]) expect(texts.store(lone)).toBe(lone);
    for (const text of [long(''), long('\u0000'), long('\ufeffBOM first'), long('é ü 中文 🎉 \u2028 \\ud800')]) {
      const stored = texts.store(text);
      expect(Buffer.isBuffer(stored)).toBe(true);
      expect(stored.length).toBe(Buffer.byteLength(text));
      expect(texts.read(stored) === text).toBe(true);
    }
  });

  it('writes a released block again for a text of about the same size, and never one still in use', () => {
    const texts = new TextStore();
    const a = texts.store(long('a'));
    const b = texts.store(long('b'));
    if (typeof a === 'string' || typeof b === 'string') throw new Error('unreachable');
    expect(a.buffer).not.toBe(b.buffer);
    texts.release(a);
    // A little longer, in the same block size: a's block, and b is untouched.
    const c = texts.store(long('cc'));
    if (typeof c === 'string') throw new Error('unreachable');
    expect(c.buffer).toBe(a.buffer);
    expect(texts.read(c)).toBe(long('cc'));
    expect(texts.read(b)).toBe(long('b'));
    // Twice the size takes a new block; so does the next text once the free one is taken.
    texts.release(b);
    const big = texts.store(long('d'.repeat(MIN_STORED_BYTES_LENGTH)));
    const next = texts.store(long('e'));
    if (typeof big === 'string' || typeof next === 'string') throw new Error('unreachable');
    expect(big.buffer).not.toBe(b.buffer);
    expect(next.buffer).toBe(b.buffer);
    texts.release('a string: nothing to take back');
  });

  it('keeps every text a string when told to keep nothing off the heap', () => {
    const texts = new TextStore(false);
    const text = long('{"a": 1}');
    expect(texts.store(text)).toBe(text);
  });

  it('sizes blocks to within an eighth of the text', () => {
    const texts = new TextStore();
    for (const length of [4096, 4097, 4607, 4608, 21_371, 65_536, 1_000_000]) {
      const stored = texts.store('y'.repeat(length));
      if (typeof stored === 'string') throw new Error('unreachable');
      expect(stored.buffer.byteLength).toBeGreaterThanOrEqual(length);
      expect(stored.buffer.byteLength).toBeLessThanOrEqual(length * 1.125);
    }
  });
});
