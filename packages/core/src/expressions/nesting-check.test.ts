import { compile } from '@jmespath-community/jmespath';
import { describe, expect, it } from 'vitest';
import {
  ExpressionError,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LENGTH,
  MAX_EXPRESSION_NESTING,
  compileExpression,
  expressionSchema,
} from '@agent-platform/core';
import { expressionDepth, expressionNesting } from './nesting-check.js';

/** Filters as people write them (those of growth-check.test.ts, and a few deeper ones). */
const REALISTIC_FILTERS = [
  "action == 'opened' && contains(pull_request.labels[].name, 'bug')",
  "contains(pull_request.labels[*].name, 'ready') && !pull_request.draft",
  "length(commits[?contains(message, '[agent]')]) > `0`",
  "commits[].added[] | [?ends_with(@, '.md')] | length(@) > `0`",
  "length(data.object.lines.data[?price.recurring.interval == 'year']) > `0`",
  "{title: issue.title, body: issue.body, labels: issue.labels[].name, user: issue.user.login}.labels | contains(@, 'bug')",
  "max_by(commits, &length(message)).author.name == 'bot'",
  "let $repo = repository.name in pull_request.head.ref == join('-', [$repo, 'release'])",
  "replace(lower(issue.title), ' ', '-') | starts_with(@, 'bug-')",
  'workflow_run.conclusion == `"failure"` && workflow_run.head_branch == `"main"`',
  "(action == 'opened' || action == 'reopened') && !(pull_request.draft || contains(pull_request.labels[].name, 'wip'))",
  "length(pull_request.requested_reviewers[?login == 'alice' || login == 'bob']) > `0` ? 'review' : 'skip'",
  "data.object.metadata.tier == 'enterprise' && contains(['past_due', 'unpaid'], data.object.status)",
];

/** Each shape nested `levels` deep. */
const SHAPES: Array<[string, (levels: number) => string]> = [
  ['brackets', (n) => `${'['.repeat(n)}a${']'.repeat(n)}`],
  ['braces', (n) => `${'{a:'.repeat(n)}a${'}'.repeat(n)}`],
  ['parentheses', (n) => `${'('.repeat(n)}a${')'.repeat(n)}`],
  ['negations', (n) => `${'!'.repeat(n)}a`],
  ['expression references', (n) => `sort_by(a, ${'& '.repeat(n - 1)}b)`],
  ['function calls', (n) => `${'abs('.repeat(n)}a${')'.repeat(n)}`],
  ['filters', (n) => `${'[?'.repeat(n)}a${']'.repeat(n)}`],
  ['negated parentheses', (n) => `${'!('.repeat(n / 2)}a${')'.repeat(n / 2)}`],
  ['ternaries', (n) => `${Array(n).fill('a ? b').join(' : ')} : c`],
  ['lets', (n) => `${'let $a = a in '.repeat(n)}$a`],
  ['JSON literals', (n) => `\`${'['.repeat(n)}${']'.repeat(n)}\``],
  ['pipes into brackets', (n) => `a | ${'[b | '.repeat(n)}c${']'.repeat(n)}`],
];

/** What evaluating the expression throws, if anything (a type error is fine; a stack overflow is not). */
function evaluationError(filter: string): unknown {
  try {
    compileExpression(filter).evaluate({ a: { a: [{ a: 1 }] }, b: 1, c: [1] });
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('nesting bound', () => {
  it.each(REALISTIC_FILTERS)('accepts %s, far below the bounds', (filter) => {
    expect(() => compileExpression(filter)).not.toThrow();
    expect(expressionNesting(filter)).toBeLessThanOrEqual(6);
    expect(expressionDepth(compile(filter))).toBeLessThanOrEqual(16);
  });

  it.each(SHAPES)('accepts %s nested to the bound, and refuses one level more, naming the bound', (_, shape) => {
    const atLimit = shape(MAX_EXPRESSION_NESTING);
    expect(expressionNesting(atLimit)).toBe(MAX_EXPRESSION_NESTING);
    expect(() => compileExpression(atLimit)).not.toThrow();
    expect(evaluationError(atLimit)).not.toBeInstanceOf(RangeError);
    const over = shape(MAX_EXPRESSION_NESTING + 2);
    expect(() => compileExpression(over)).toThrow(ExpressionError);
    expect(() => compileExpression(over)).toThrow(`expression nests ${MAX_EXPRESSION_NESTING + 2} levels deep; at most ${MAX_EXPRESSION_NESTING} are allowed`);
  });

  it.each(SHAPES)('refuses %s nested 2,046 and 20,000 levels deep with the reason, not a stack overflow', (_, shape) => {
    for (const levels of [2046, 20_000]) {
      const filter = shape(levels).slice(0, MAX_EXPRESSION_LENGTH);
      const result = expressionSchema.safeParse(filter);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/^expression nests \d+ levels deep; at most 64 are allowed/);
      // Past the length bound the length is what is refused, still without recursing.
      expect(expressionSchema.safeParse(shape(levels)).success).toBe(false);
    }
  });

  it('refuses the 4 KB filter nesting 2,046 brackets, saying how deep it nests', () => {
    const filter = `${'['.repeat(2046)}a${']'.repeat(2046)}`;
    expect(filter.length).toBeLessThanOrEqual(MAX_EXPRESSION_LENGTH);
    expect(() => compileExpression(filter)).toThrow('expression nests 2046 levels deep; at most 64 are allowed');
  });

  it('ignores brackets inside strings and quoted identifiers', () => {
    const filter = `contains(title, '${'['.repeat(200)}') || "${'('.repeat(200)}" == \`"${'{'.repeat(200)}"\``;
    expect(expressionNesting(filter)).toBe(1);
    expect(() => compileExpression(filter)).not.toThrow();
  });

  it.each([
    ['pipes', (n: number) => Array(n).fill('a').join(' | ')],
    ['dots', (n: number) => Array(n).fill('a').join('.')],
    ['ors', (n: number) => Array(n).fill('a').join('||')],
    ['comparisons', (n: number) => Array(n).fill('a').join('==')],
    ['projections', (n: number) => `a${'[*]'.repeat(n)}`],
    ['flattens', (n: number) => `a${'[]'.repeat(n)}`],
  ])('refuses chains of %s deeper than the tree bound, and accepts long ones', (_, chain) => {
    expect(() => compileExpression(chain(100))).not.toThrow();
    expect(evaluationError(chain(MAX_EXPRESSION_DEPTH - 4))).not.toBeInstanceOf(RangeError);
    const links = Math.floor(MAX_EXPRESSION_LENGTH / 4);
    expect(() => compileExpression(chain(links))).toThrow(new RegExp(`^expression is \\d+ levels deep; at most ${MAX_EXPRESSION_DEPTH} are allowed`));
  });
});
