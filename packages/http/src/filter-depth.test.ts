/**
 * Deeply nested filters are refused when saved, patched or validated, with 422 and the bound,
 * never a 500 from a stack overflow (expressions/nesting-check.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EXPRESSION_LENGTH, MAX_EXPRESSION_NESTING } from '@agent-platform/core';
import { BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const BASE = '/api/automation/v1';
const valid = {
  name: 'Triage bugs',
  trigger: { type: 'event', source: 'github', on: 'issues.labeled', filter: "contains(issue.labels[].name, 'bug')" },
  instructions: 'Reproduce the bug and open a PR with a fix.',
};
const withFilter = (filter: string) => ({ ...valid, trigger: { ...valid.trigger, filter } });

/** Each shape nested `levels` deep, cut to the longest filter accepted. */
const SHAPES: Array<[string, (levels: number) => string]> = [
  ['brackets', (n) => `${'['.repeat(n)}a${']'.repeat(n)}`],
  ['braces', (n) => `${'{a:'.repeat(n)}a${'}'.repeat(n)}`],
  ['parentheses', (n) => `${'('.repeat(n)}a${')'.repeat(n)}`],
  ['negations', (n) => `${'!'.repeat(n)}a`],
  ['expression references', (n) => `sort_by(a, ${'& '.repeat(n - 1)}b)`],
  ['pipes into brackets', (n) => `a | ${'[b | '.repeat(n)}c${']'.repeat(n)}`],
  ['function calls', (n) => `${'abs('.repeat(n)}a${')'.repeat(n)}`],
];
const hostile = (shape: (levels: number) => string, levels: number) => shape(levels).slice(0, MAX_EXPRESSION_LENGTH);
const NESTS = new RegExp(`^expression nests \\d+ levels deep; at most ${MAX_EXPRESSION_NESTING} are allowed`);

describe.each(BINDINGS)('filter nesting bound on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding);
  });
  afterAll(() => api.close());

  const expectRefused = (answer: { status: number; json: any }, loc: string[]) => {
    expect(answer.status).toBe(422);
    const issue = answer.json.detail.find((item: { loc: string[] }) => item.loc.join('.') === loc.join('.'));
    expect(issue?.msg).toMatch(NESTS);
  };

  it('answers 422 naming the bound for the 4 KB filter nesting 2,046 brackets', async () => {
    const filter = `${'['.repeat(2046)}a${']'.repeat(2046)}`;
    const answer = await api.request('POST', BASE, { json: withFilter(filter) });
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.json)).toContain(`expression nests 2046 levels deep; at most ${MAX_EXPRESSION_NESTING} are allowed`);
  });

  it.each(SHAPES)('answers 422 for %s nested 2,046 and 20,000 deep, at save, patch and validate', async (_, shape) => {
    const created = await api.request('POST', BASE, { json: valid });
    for (const levels of [2046, 20_000]) {
      const filter = hostile(shape, levels);
      expectRefused(await api.request('POST', BASE, { json: withFilter(filter) }), ['body', 'trigger', 'filter']);
      expectRefused(await api.request('PATCH', `${BASE}/${created.json.id}`, { json: { trigger: { filter } } }), ['body', 'trigger', 'filter']);
      expectRefused(await api.request('POST', `${BASE}/validate`, { json: { automation: withFilter(filter) } }), ['body', 'automation', 'trigger', 'filter']);
    }
  });

  it.each(SHAPES)('accepts %s nested to the bound, at save and validate', async (_, shape) => {
    const filter = shape(MAX_EXPRESSION_NESTING);
    const created = await api.request('POST', BASE, { json: withFilter(filter) });
    expect(created.status).toBe(201);
    expect(created.json.trigger.filter).toBe(filter);
    const checked = await api.request('POST', `${BASE}/validate`, {
      json: { automation: withFilter(filter), sample_payload: { a: [1] }, sample_event_key: 'issues.labeled' },
    });
    expect(checked.status).toBe(200);
    expect(checked.json.results).toHaveLength(1);
    // Evaluated (some shapes fail on the sample's types, as they would at ingest), never overflowing.
    expect(String(checked.json.results[0].detail)).not.toMatch(/call stack|too deep/i);
  });
});
