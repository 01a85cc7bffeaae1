import { describe, expect, it } from 'vitest';
import { globMatch } from '@agent-platform/core';

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
});
