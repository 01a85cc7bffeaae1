import { describe, expect, it } from 'vitest';
import { EvaluationBudgetError, ExpressionError, MAX_EVALUATION_STEPS, MAX_EXPRESSION_LENGTH, compileExpression, isTruthy } from '@agent-platform/core';

const payload = {
  type: 'Issue',
  action: 'create',
  data: { title: 'Fix the Login page', labels: ['Bug', 'frontend'], branch: 'release/1.2' },
};

describe('compileExpression', () => {
  it('evaluates paths, comparisons and &&', () => {
    expect(compileExpression('type').evaluate(payload)).toBe('Issue');
    expect(compileExpression("type == 'Issue' && action == 'create'").evaluate(payload)).toBe(true);
  });

  it('provides icontains for strings and arrays of strings', () => {
    expect(compileExpression("icontains(data.title, 'login')").evaluate(payload)).toBe(true);
    expect(compileExpression("icontains(data.labels, 'bug')").evaluate(payload)).toBe(true);
    expect(compileExpression("icontains(data.labels, 'bu')").evaluate(payload)).toBe(false);
  });

  it('provides glob', () => {
    expect(compileExpression("glob(data.branch, 'release/*')").evaluate(payload)).toBe(true);
    expect(compileExpression("glob(data.branch, 'main')").evaluate(payload)).toBe(false);
  });

  it('throws at evaluation when a function gets the wrong type, null included', () => {
    expect(() => compileExpression("icontains(missing_field, 'x')").evaluate(payload)).toThrow();
    expect(() => compileExpression("glob(`1`, 'x')").evaluate(payload)).toThrow();
  });

  it('refuses syntax errors, unknown functions and over-long expressions when compiling', () => {
    expect(() => compileExpression('a[')).toThrow(ExpressionError);
    expect(() => compileExpression('lowercase(a)')).toThrow(/unknown function lowercase\(\)/);
    expect(() => compileExpression('a'.repeat(MAX_EXPRESSION_LENGTH + 1))).toThrow(/longer than/);
  });

  it('says to write a string in single quotes when one is written between backticks', () => {
    expect(() => compileExpression('icontains(data.title, `crash`)')).toThrow(
      /JSON literal.* — between backticks JMESPath takes JSON \(`"crash"`\); for a string write 'crash' in single quotes$/,
    );
    // A JSON literal between backticks is fine, and other syntax errors get no such hint.
    expect(compileExpression('data.title == `"Fix the Login page"`').evaluate(payload)).toBe(true);
    expect(() => compileExpression('data.labels[')).toThrow(/^invalid JMESPath expression: [^—]*$/);
  });

  it('applies JMESPath truthiness', () => {
    expect([null, false, '', [], {}].map((value) => isTruthy(value))).toEqual([false, false, false, false, false]);
    expect([0, 'x', [1], { a: 1 }, true].map((value) => isTruthy(value))).toEqual([true, true, true, true, true]);
  });

  it('tests truthiness within the same evaluation', () => {
    expect(compileExpression('data.labels').test(payload)).toBe(true);
    expect(compileExpression('data.missing').test(payload)).toBe(false);
    expect(compileExpression('data').test({ data: {} })).toBe(false);
  });

  it('lower-cases a long text once for many icontains calls, with the right answers', () => {
    const body = `${'Lorem Ipsum '.repeat(100_000)}The END`;
    const other = `${'Lorem Ipsum '.repeat(100_000)}The FIN`;
    const filter = compileExpression(
      `${Array.from({ length: 60 }, (_, i) => `icontains(body, 'zz${i}')`).join(' || ')} || (icontains(body, 'the end') && !icontains(other, 'the end'))`,
    );
    expect(filter.test({ body, other })).toBe(true);
    expect(filter.test({ body: other, other: body })).toBe(false);
  });

  it('throws EvaluationBudgetError past the budget, and honours smaller limits', () => {
    const filter = compileExpression('items[?x > `0`].x');
    const items = { items: Array.from({ length: 1000 }, (_, x) => ({ x })) };
    expect(filter.evaluate(items)).toHaveLength(999);
    expect(() => filter.evaluate(items, { maxSteps: 100, maxBytes: 1 << 20, maxMs: 1000 })).toThrow(EvaluationBudgetError);
    expect(() => filter.evaluate(items, { maxSteps: 100, maxBytes: 1 << 20, maxMs: 1000 })).toThrow(/more than 100 steps/);
    const huge = { items: Array.from({ length: MAX_EVALUATION_STEPS }, (_, x) => ({ x })) };
    expect(() => filter.evaluate(huge)).toThrow(/^expression exceeded its evaluation budget/);
  });
});
