import { describe, expect, it } from 'vitest';
import { EvaluationBudgetError, ExpressionError, compileExpression } from '@agent-platform/core';
import { MAX_REGEX_PATTERN_LENGTH } from './regex.js';

const payload = {
  ref: 'refs/heads/release/1.2',
  pull_request: { title: 'Fixes #123: login page', head: { ref: 'feature/Login-Form' }, labels: [{ name: 'Bug' }] },
  comment: { body: 'Hey @Agent please look' },
};
const test = (filter: string, data: unknown = payload) => compileExpression(filter).test(data);

describe('filter functions regex, starts_with, ends_with, lower, upper', () => {
  it('regex matches anywhere unless anchored, in RE2 syntax', () => {
    expect(test("regex(pull_request.title, '#\\d+')")).toBe(true);
    expect(test("regex(pull_request.title, '^Fix(es|ed)? #\\d+')")).toBe(true);
    expect(test("regex(pull_request.title, '^login')")).toBe(false);
    expect(test("regex(ref, '^refs/heads/release/[0-9]+\\.[0-9]+$')")).toBe(true);
  });

  it('regex is case-insensitive with (?i)', () => {
    expect(test("regex(comment.body, '@agent\\b')")).toBe(false);
    expect(test("regex(comment.body, '(?i)@agent\\b')")).toBe(true);
  });

  it('regex works over projections and in boolean expressions', () => {
    expect(test("length(pull_request.labels[?regex(name, '(?i)^bug$')]) > `0`")).toBe(true);
    expect(test("regex(pull_request.head.ref, '^feature/') && !regex(pull_request.head.ref, '^feature/wip')")).toBe(true);
  });

  it('starts_with, ends_with, lower and upper', () => {
    expect(test("starts_with(ref, 'refs/heads/')")).toBe(true);
    expect(test("ends_with(pull_request.head.ref, '-Form')")).toBe(true);
    expect(test("lower(pull_request.head.ref) == 'feature/login-form'")).toBe(true);
    expect(test("contains(upper(comment.body), '@AGENT')")).toBe(true);
  });

  it('refuses a literal pattern that does not compile when the filter is saved', () => {
    expect(() => compileExpression("regex(ref, '(unclosed')")).toThrow(ExpressionError);
    expect(() => compileExpression("regex(ref, '(unclosed')")).toThrow(/invalid regex pattern "\(unclosed": .*missing closing \)/);
    // Backreferences and lookarounds are not RE2: refused, never run with backtracking.
    expect(() => compileExpression("regex(ref, '(a)\\1')")).toThrow(/invalid regex pattern/);
    expect(() => compileExpression("regex(ref, 'a(?=b)')")).toThrow(/invalid regex pattern/);
    expect(() => compileExpression(`regex(ref, '${'a'.repeat(MAX_REGEX_PATTERN_LENGTH + 1)}')`)).toThrow(/longer than 512/);
    // Unknown functions are still refused.
    expect(() => compileExpression("regexp(ref, 'x')")).toThrow(/unknown function regexp\(\)/);
  });

  it('fails closed when a pattern taken from the payload does not compile, or a type is wrong', () => {
    expect(() => test('regex(ref, pattern)', { ref: 'x', pattern: '(' })).toThrow(/invalid regex pattern/);
    expect(() => test("regex(missing, 'x')")).toThrow();
  });

  it('runs pathological patterns in linear time: no catastrophic backtracking', () => {
    // Each of these takes a backtracking engine (JS RegExp) longer than the age of the universe
    // on a subject this long; RE2 answers at once. The bound here is loose on purpose: it only
    // tells linear from exponential, not fast from slow.
    const subject = `${'a'.repeat(20_000)}!`;
    for (const pattern of ['^(a+)+$', '^(a|a)*$', '^(a|aa)+$', '^(.*a){12}$', '(x+x+)+y']) {
      const started = performance.now();
      expect(test(`regex(s, '${pattern}')`, { s: subject })).toBe(false);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });

  it('charges regex to the evaluation budget before it runs', () => {
    const long = 'ab'.repeat(600_000);
    // 1.2 million characters: past the 1,000,000-step budget, so refused before matching.
    expect(() => test("regex(s, 'b$')", { s: long })).toThrow(EvaluationBudgetError);
    expect(test("regex(s, 'b$')", { s: long.slice(0, 100_000) })).toBe(true);
  });
});
