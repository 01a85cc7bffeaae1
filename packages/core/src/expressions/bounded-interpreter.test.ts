import { TreeInterpreter, compile, type JSONValue } from '@jmespath-community/jmespath';
import { describe, expect, it } from 'vitest';
import { BoundedInterpreter } from './bounded-interpreter.js';
import { EvaluationBudgetError, type EvaluationLimits } from './evaluation-budget.js';

const UNLIMITED: EvaluationLimits = { maxSteps: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER, maxMs: 60_000 };

const payload = {
  action: 'opened',
  number: 42,
  ref: 'refs/heads/release/1.2',
  title: '  Crash in Login   ',
  emoji: 'a😀b\ud800c',
  ws: '\t x y \n',
  nested: { a: { b: [1, 2, 3] }, c: null, d: '', e: [], f: {} },
  labels: [
    { name: 'bug', id: 3 },
    { name: 'ui', id: 1 },
    { name: 'Docs', id: 2 },
  ],
  names: ['b', 'a', 'c', 'a'],
  words: ['b', 'a😀', 'a\uffff', 'a', 'ab', 'a', '😀', '\ue000', '\ud800x', 'aa', ''],
  mixed: [{ k: 'x' }, { k: 1 }],
  numbers: [3, 10, 2, -1.5],
  pairs: [
    ['x', 1],
    ['y', [2]],
  ],
  objects: [
    { k: 'a', v: 1 },
    { k: 'b', v: 2 },
    { k: 'a', v: 3 },
  ],
  same1: { x: [1, { y: 'z' }], w: null },
  same2: { w: null, x: [1, { y: 'z' }] },
};

/** Expressions covering every node type and built-in function, compared with the library's interpreter. */
const EXPRESSIONS = [
  'action',
  'nested.a.b[1]',
  'nested.a.b[-1]',
  'nested.missing.x',
  'labels[0].name',
  'labels[*].name',
  'labels[].name',
  'labels[?id > `1`].name',
  'labels[?name == `"bug"`] | [0].id',
  'nested.*',
  'nested.* | length(@)',
  '*.b',
  '@',
  '$.action',
  'numbers[1:3]',
  'numbers[::-1]',
  'numbers[-2:]',
  'numbers[::2]',
  'numbers[5:]',
  'title[2:7]',
  'title[::-1]',
  'title[-3:]',
  'emoji[1:2]',
  'emoji[::-1]',
  'emoji[0:4]',
  'emoji[-2:]',
  'emoji[::2]',
  'emoji[1:]',
  'ref[:4]',
  'ref[100:]',
  'ref[::-3]',
  '[action, number]',
  '{a: action, n: number}',
  '[labels[].name, names][]',
  'pairs[]',
  'pairs[][]',
  '[[`1`], `2`, [[`3`]]][]',
  'action == `"opened"`',
  "action != 'opened'",
  'number > `41`',
  'number >= `43`',
  'number < `42`',
  'number <= `42`',
  'action > `1`',
  'same1 == same2',
  'same1 != same2',
  'labels == labels',
  'labels[0] == labels[1]',
  'nested.a == `{"b": [1, 2, 3]}`',
  'numbers == `[3, 10, 2, -1.5]`',
  '`[1, {"a": 2}]` == `[1, {"a": 2}]`',
  '`{"a": 1}` == `{"a": 1, "b": 2}`',
  '`[]` == `{}`',
  '`null` == nested.c',
  'action && number',
  'nested.d && number',
  'nested.e || number',
  'nested.f || `"x"`',
  '!nested.f',
  '!labels',
  '!`0`',
  "nested.c ? 'yes' : 'no'",
  "labels ? 'yes' : 'no'",
  'number + `1`',
  'number - `2`',
  'number * `3`',
  'number / `4`',
  'number % `5`',
  'number // `5`',
  '-number',
  'let $x = number in $x',
  'let $x = labels in $x[0].name',
  'let $a = `1`, $b = `2` in [$a, $b]',
  'let $x = number in labels[*].[name, $x]',
  'abs(`-3`)',
  'avg(numbers)',
  'ceil(`1.2`)',
  'floor(`1.8`)',
  "contains(names, 'a')",
  "contains(title, 'Login')",
  'contains(numbers, `10`)',
  "ends_with(ref, '1.2')",
  "starts_with(ref, 'refs/')",
  "find_first(ref, 'e')",
  "find_last(ref, 'e')",
  "find_first(ref, 'e', `3`)",
  'from_items(pairs)',
  'group_by(objects, &k)',
  'items(nested.a)',
  "join(', ', names)",
  'join(``, names)',
  'keys(nested)',
  'values(nested.a)',
  'length(title)',
  'length(emoji)',
  'length(labels)',
  'length(nested)',
  'length(``)',
  'map(&id, labels)',
  'map(&[name], labels)',
  'max(numbers)',
  'max(names)',
  'min(numbers)',
  'min(names)',
  'max_by(labels, &id).name',
  'min_by(labels, &name).name',
  'merge(nested.a, `{"z": 1}`, same1)',
  'not_null(nested.c, nested.missing, action)',
  'not_null(nested.c)',
  'pad_left(action, `10`)',
  "pad_left(action, `10`, '*')",
  'pad_right(action, `3`)',
  "pad_right('', `4`, '-')",
  "replace(ref, '/', '|')",
  "replace(ref, 'e', 'EE', `1`)",
  "replace(ref, '', '.')",
  "replace(action, 'x', 'y', `0`)",
  'reverse(title)',
  'reverse(emoji)',
  'reverse(numbers)',
  'sort(names)',
  'sort(numbers)',
  'sort(words)',
  'sort(`[10, 9, 100, 1]`)',
  'sort(`[]`)',
  'sort_by(labels, &name)[*].id',
  'sort_by(labels, &id)[*].name',
  'sort_by(words[*].{w: @}, &w)[*].w',
  'sort_by(mixed, &k)',
  'sort_by(labels, &[name])',
  'sort_by(`[]`, &a)',
  'sort_by(objects, &k)[*].v',
  "split(ref, '/')",
  "split(ref, '/', `1`)",
  "split(ref, '')",
  "split('', '')",
  'sum(numbers)',
  'to_array(action)',
  'to_array(names)',
  "to_number('12.5')",
  "to_number('x')",
  'to_number(number)',
  'to_string(action)',
  'to_string(labels)',
  'to_string(`{"q": "a\\"b\\n"}`)',
  'to_string(emoji)',
  'to_string(number)',
  'to_string(nested)',
  'trim(title)',
  'trim_left(title)',
  'trim_right(title)',
  'trim(ws)',
  'trim_right(ws)',
  "trim(ref, 'r1.2')",
  "trim_left(ref, 'fer')",
  "trim_right(ref, '.21')",
  "trim(title, ' C')",
  "trim('a\\nb  ')",
  "trim_right('a\\n  \\n b  ')",
  "trim('  ')",
  'type(action)',
  'type(number)',
  'type(labels)',
  'type(nested)',
  'type(`true`)',
  'type(nested.c)',
  'upper(title)',
  'lower(title)',
  'zip(names, numbers)',
  'zip(names, numbers, labels)',
  // errors
  'abs(action)',
  'length(number)',
  'unknown_var_x || $nope',
  'pad_left(action, `-1`)',
  'numbers[::0]',
  'sort(labels)',
  'join(`,`, numbers)',
];

function outcome(run: () => unknown): { value?: unknown; error?: boolean } {
  try {
    return { value: run() };
  } catch {
    return { error: true };
  }
}

describe('BoundedInterpreter', () => {
  const bounded = new BoundedInterpreter();

  it.each(EXPRESSIONS)('gives the library interpreter’s result for %s', (source) => {
    const expected = outcome(() => TreeInterpreter.search(compile(source), payload as JSONValue));
    const actual = outcome(() => bounded.evaluate(compile(source), payload as JSONValue, UNLIMITED));
    expect(actual).toEqual(expected);
  });

  it('trims like the library over strings with line breaks and custom character sets', () => {
    const subjects = ['', ' ', 'abc', '  a b  ', '\n\n x \n', 'x\u2028  ', '\u00a0y\u0085', 'a\nb\nc  ', '--a--', '\\a\\', ']a]', '^a^', 'éaé'];
    const sets = [undefined, 'a', '-', '\\', ']', '^', 'é', 'ab-', ' \n'];
    for (const subject of subjects) {
      for (const chars of sets) {
        for (const fn of ['trim', 'trim_left', 'trim_right']) {
          const args = chars === undefined ? '' : `, ${JSON.stringify(chars).replace(/^"|"$/g, "'")}`;
          const source = `${fn}(@${args})`;
          const ast = compile(source);
          expect(bounded.evaluate(ast, subject, UNLIMITED), `${source} over ${JSON.stringify(subject)}`).toBe(TreeInterpreter.search(ast, subject));
        }
      }
    }
  });

  it('trims a long run of spaces in linear time (the library’s regex is quadratic)', () => {
    const subject = `${' '.repeat(200_000)}x`;
    expect(bounded.evaluate(compile('length(trim_right(@))'), subject)).toBe(200_001);
    expect(bounded.evaluate(compile('length(trim(@))'), subject)).toBe(1);
  });

  it('stops a doubling chain past the step budget, before its value is built', () => {
    const chain = Array.from({ length: 25 }, () => '[@,@][]').join('|');
    const error = outcomeError(() => bounded.evaluate(compile(`length(@|${chain})`), { a: 1 }));
    expect(error).toBeInstanceOf(EvaluationBudgetError);
    // Steps, or the clock on a loaded machine.
    expect(['steps', 'time']).toContain((error as EvaluationBudgetError).limit);
  });

  it('refuses an oversized result before allocating it', () => {
    for (const source of ["pad_left('a', `1000000000`)", "replace('a', 'a', 'b', `100000000`)", `join('', [${Array(300).fill('@').join(',')}])`]) {
      const error = outcomeError(() => bounded.evaluate(compile(source), 'x'.repeat(1 << 20)));
      expect(error, source).toBeInstanceOf(EvaluationBudgetError);
      expect((error as EvaluationBudgetError).limit, source).toBe('memory');
    }
  });

  it('bounds deep comparison and serialisation of values that repeat their parts', () => {
    const chain = Array.from({ length: 30 }, () => '[@,@]').join('|');
    for (const source of [`(@|${chain}) == (@|${chain})`, `to_string(@|${chain})`]) {
      expect(
        outcomeError(() => bounded.evaluate(compile(source), { a: 'x' })),
        source,
      ).toBeInstanceOf(EvaluationBudgetError);
    }
  });

  it('applies smaller limits when given, and starts afresh for each evaluation', () => {
    const ast = compile('items[*].x');
    const items = { items: Array.from({ length: 100 }, (_, x) => ({ x })) };
    expect(outcomeError(() => bounded.evaluate(ast, items, { ...UNLIMITED, maxSteps: 50 }))).toBeInstanceOf(EvaluationBudgetError);
    expect(bounded.evaluate(ast, items, { ...UNLIMITED, maxSteps: 500 })).toHaveLength(100);
    expect(bounded.evaluate(ast, items, { ...UNLIMITED, maxSteps: 500 })).toHaveLength(100);
  });
});

function outcomeError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
