import { describe, expect, it } from 'vitest';
import { globMatch } from '@agent-platform/core';
import { compileGlob, indexOfWithin } from './glob.js';

describe('globMatch', () => {
  it.each([
    ['pull_request.opened', 'pull_request.*', true],
    ['pull_request.opened', 'pull_request.opened', true],
    ['pull_request', 'pull_request.*', false],
    ['a.b.c', '*', true],
    ['a.b.c', 'a*c', true],
    ['abc', 'a?c', true],
    ['ac', 'a?c', false],
    ['b1', '[abc]1', true],
    ['d1', '[!abc]1', true],
    ['m', '[a-z]', true],
    ['M', '[a-z]', false],
    ['Push', 'push', false],
    ['[x', '[x', true],
  ])('%s ~ %s → %s', (subject, pattern, expected) => {
    expect(globMatch(subject, pattern)).toBe(expected);
  });

  it('stays fast on patterns that make backtracking regexes explode', () => {
    const subject = 'a'.repeat(5000);
    expect(globMatch(subject, `${'*a'.repeat(50)}b`)).toBe(false);
  });

  it('takes a surrogate pair as one character and compares sets in string order', () => {
    expect(globMatch('a😀b', 'a?b')).toBe(true);
    expect(globMatch('a😀b', 'a??b')).toBe(false);
    expect(globMatch('😀', '[😀]')).toBe(true);
    expect(globMatch('\ue000', '[a-😀]')).toBe(false);
    expect(globMatch('x\ud800', 'x?')).toBe(true);
    expect(globMatch('😀x', '*\ude00x')).toBe(false);
    expect(globMatch('a\ude00x', '*\ude00x')).toBe(true);
  });

  it('gives the results of the former algorithm (code-point arrays, two pointers) on random patterns', () => {
    const alphabet = ['a', 'b', '.', '*', '?', '[', ']', '!', '-', '😀', '\ud800', '\ude00', 'z'];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const text = (length: number, chars: string[]) => Array.from({ length }, () => chars[random(chars.length)]).join('');
    for (let i = 0; i < 20_000; i++) {
      const pattern = text(random(8), alphabet);
      const subject = text(random(10), ['a', 'b', '.', '😀', '\ud800', '\ude00', 'z', '[', '-']);
      expect(globMatch(subject, pattern), `${JSON.stringify(subject)} ~ ${JSON.stringify(pattern)}`).toBe(formerGlobMatch(subject, pattern));
    }
  });

  it('reads a 1 MiB subject in place: 132 matches stay correct', () => {
    const subject = `refs/heads/${'release-notes '.repeat(75_000)}v1.2.3`;
    const patterns = [
      'refs/heads/*',
      '*v1.2.3',
      '*notes v1.?.3',
      'refs/*/release-*',
      '*[0-9].[0-9].[0-9]',
      '*release-notes v1*',
      'refs/tags/*',
      '*v2*',
      '*[!a-z]',
    ];
    const expected = [true, true, true, true, true, true, false, false, true];
    for (let i = 0; i < 132; i++) {
      const k = i % patterns.length;
      expect(globMatch(subject, patterns[k] as string), patterns[k]).toBe(expected[k]);
    }
  });

  it('charges its work to a budget, which can stop a costly match', () => {
    let charged = 0;
    const budget = { charge: (steps: number) => (charged += steps) };
    expect(compileGlob('*[0-9]*').matches('a'.repeat(100_000), budget)).toBe(false);
    expect(charged).toBeGreaterThan(10_000);
    const stop = {
      charge: () => {
        throw new Error('over budget');
      },
    };
    expect(() => compileGlob('*?b*').matches('a'.repeat(100_000), stop)).toThrow('over budget');
  });

  it('searches in chunks without missing a match across a seam', () => {
    const subject = `${'x'.repeat((1 << 16) - 2)}needle${'x'.repeat(1 << 17)}`;
    const chunks: number[] = [];
    expect(indexOfWithin(subject, 'needle', 0, subject.length, { searched: (units) => chunks.push(units) })).toBe((1 << 16) - 2);
    expect(chunks.length).toBeGreaterThan(0);
    expect(indexOfWithin(subject, 'needle', 0, (1 << 16) + 2, { searched: () => undefined })).toBe(-1);
    expect(indexOfWithin(subject, 'needle', 1 << 16, subject.length, { searched: () => undefined })).toBe(-1);
  });
});

/** The algorithm glob.ts used before (it copies the subject into code points): the reference. */
function formerGlobMatch(subject: string, pattern: string): boolean {
  type Token = { kind: 'literal'; char: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'set'; negated: boolean; ranges: [string, string][] };
  const chars = [...pattern];
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as string;
    if (char === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === '?') {
      tokens.push({ kind: 'any' });
    } else if (char === '[') {
      let j = i + 1;
      const negated = chars[j] === '!' || chars[j] === '^';
      if (negated) j++;
      const ranges: [string, string][] = [];
      let first = true;
      let closed = -1;
      while (j < chars.length) {
        const c = chars[j] as string;
        if (c === ']' && !first) {
          closed = j;
          break;
        }
        first = false;
        if (chars[j + 1] === '-' && chars[j + 2] !== undefined && chars[j + 2] !== ']') {
          ranges.push([c, chars[j + 2] as string]);
          j += 3;
        } else {
          ranges.push([c, c]);
          j++;
        }
      }
      if (closed >= 0) {
        tokens.push({ kind: 'set', negated, ranges });
        i = closed;
      } else {
        tokens.push({ kind: 'literal', char });
      }
    } else {
      tokens.push({ kind: 'literal', char });
    }
  }
  if (tokens.every((token) => token.kind === 'literal')) return subject === pattern;
  const matches = (token: Token, char: string) =>
    token.kind === 'literal'
      ? token.char === char
      : token.kind === 'any'
        ? true
        : token.kind === 'set'
          ? token.ranges.some(([low, high]) => char >= low && char <= high) !== token.negated
          : false;
  const text = [...subject];
  let t = 0;
  let s = 0;
  let starToken = -1;
  let starSubject = 0;
  while (s < text.length) {
    const token = tokens[t];
    if (token?.kind === 'star') {
      starToken = t++;
      starSubject = s;
    } else if (token && matches(token, text[s] as string)) {
      t++;
      s++;
    } else if (starToken >= 0) {
      t = starToken + 1;
      s = ++starSubject;
    } else {
      return false;
    }
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}
