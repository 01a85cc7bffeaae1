import { compile } from '@jmespath-community/jmespath';
import { describe, expect, it } from 'vitest';
import { ExpressionError, MAX_STATIC_GROWTH, compileExpression, expressionSchema } from '@agent-platform/core';
import { staticGrowth } from './growth-check.js';

const chain = (count: number, link: string) => Array.from({ length: count }, () => link).join('|');

/** Filters as people write them for GitHub, Linear, Stripe and custom sources. */
const REALISTIC_FILTERS = [
  "action == 'opened' && contains(pull_request.labels[].name, 'bug')",
  "icontains(issue.title, 'crash')",
  "glob(ref, 'refs/heads/release/*')",
  'length(commits) > `3`',
  'items[?x > `1`].y',
  "action == 'labeled' && label.name == 'agent'",
  "contains(pull_request.labels[*].name, 'ready') && !pull_request.draft",
  "repository.full_name == 'acme/web' && sender.type != 'Bot'",
  "starts_with(ref, 'refs/tags/v') && !deleted",
  "length(commits[?contains(message, '[agent]')]) > `0`",
  "commits[].added[] | [?ends_with(@, '.md')] | length(@) > `0`",
  "contains(commits[].modified[], 'package.json') || contains(commits[].added[], 'package.json')",
  "type == 'Issue' && action == 'create' && contains(data.labels[].name, 'Bug')",
  "data.state.name == 'In Progress' && updatedFrom.stateId != null",
  "icontains(data.labels[].name, 'urgent') && data.priority <= `2`",
  "type == 'invoice.payment_failed' && data.object.amount_due > `10000`",
  "data.object.status == 'past_due' && data.object.metadata.tier == 'enterprise'",
  "length(data.object.lines.data[?price.recurring.interval == 'year']) > `0`",
  "{title: issue.title, body: issue.body, labels: issue.labels[].name, user: issue.user.login}.labels | contains(@, 'bug')",
  "[issue.title, issue.body] | [?@ != null] | join(' ', @) | icontains(@, 'regression')",
  "to_string(pull_request.labels) | contains(@, 'security')",
  "join(', ', sort(pull_request.labels[].name)) == 'bug, ui'",
  "max_by(commits, &length(message)).author.name == 'bot'",
  "not_null(pull_request.merged_by.login, sender.login) == 'alice'",
  'merge(issue, {extra: `1`}).extra == `1`',
  "let $repo = repository.name in pull_request.head.ref == join('-', [$repo, 'release'])",
  "pull_request.requested_reviewers[*].login | contains(@, 'alice')",
  'keys(pull_request.labels[0]) | length(@) > `1`',
  "glob(pull_request.head.ref, 'feature/*') && icontains(pull_request.body, 'fixes #')",
  "replace(lower(issue.title), ' ', '-') | starts_with(@, 'bug-')",
  "map(&name, labels) | sort(@) | [0] == 'a'",
  'items[*].[id, name, state, owner.login, tags[0]] | length(@) > `0`',
  'workflow_run.conclusion == `"failure"` && workflow_run.head_branch == `"main"`',
];

describe('static growth check', () => {
  it.each(REALISTIC_FILTERS)('accepts %s', (filter) => {
    expect(() => compileExpression(filter)).not.toThrow();
    expect(staticGrowth(compile(filter))).toBeLessThanOrEqual(16);
  });

  it('refuses the 25-fold doubling filter, saying why', () => {
    const filter = `length(@|${chain(25, '[@,@]')}|[])`;
    expect(filter.length).toBeLessThan(220);
    expect(() => compileExpression(filter)).toThrow(ExpressionError);
    expect(() => compileExpression(filter)).toThrow(/grow exponentially.*33554432 times the size of the payload.*\[@, @\]/);
    const result = expressionSchema.safeParse(filter);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/grow exponentially/);
  });

  it.each([
    ['chained pipes', `length(@|${chain(11, '[@,@]')})`],
    ['flattened doubling', `length(@|${chain(11, '[@,@][]')})`],
    ['projections', `length(a[*]${'.[@,@]'.repeat(11)})`],
    ['multi-select hashes', `@${'|{a: @, b: @}'.repeat(11)}`],
    ['wide multi-selects', `@|[${Array(40).fill('@').join(',')}]|[${Array(40).fill('@').join(',')}]`],
    ['to_string of a doubled value', `to_string(@|${chain(12, '[@,@]')})`],
    ['a comparison of doubled values', `(@|${chain(12, '[@,@]')}) == \`1\``],
    ['let bindings', `let $a = [@,@] in let $b = [$a,$a] in let $c = [$b,$b] in ${chain(8, '[@,@]')} | [$c]`],
    ['replace with an empty search', `${'replace('.repeat(5)}@${", '', 'xxxx')".repeat(5)}`],
    ['joins', `join('----------', [join('----------', [join('----------', [@, @]), @]), @])`],
    ['map', `${'map(&[@,@,@,@], '.repeat(6)}@${')'.repeat(6)}`],
  ])('refuses growth through %s', (_, filter) => {
    expect(staticGrowth(compile(filter))).toBeGreaterThan(MAX_STATIC_GROWTH);
    expect(() => compileExpression(filter)).toThrow(/grow exponentially/);
  });

  it('lets through what only grows with the data, for the evaluation budget to bound', () => {
    for (const filter of [
      `length(@|${chain(10, '[@,@]')})`,
      'length(let $r = @ in items[*].[$r.items][][*].x)',
      "length(pad_left('a', `1000000000`))",
      `length(to_string(@|[@,@,@,@,@,@,@,@]|[@,@,@,@,@,@,@,@]|[@,@,@,@,@,@,@,@]))`,
      '`[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]` | contains(@, number)',
    ]) {
      expect(() => compileExpression(filter), filter).not.toThrow();
    }
  });
});
