/**
 * Grammar-based values for the fields the server parses itself: JMESPath filters and event-key
 * expressions, `on` event-key glob patterns, and long strings that still fit a field's limit
 * (so they pass validation and reach the parser, the storage and the error messages).
 * @module
 */
import fc from 'fast-check';
import { choice } from './hostile.js';

const IDENTS = ['a', 'b', 'type', 'action', 'issue', 'title', 'data', 'labels', 'name', 'fuzz', 'repository', 'owner', 'login', '"quoted id"', '"\\u0000"'];
const LITERALS = ["'x'", "'match-me'", "''", '`1`', '`null`', '`true`', '`"s"`', '`[1,2]`', '`{}`', '`1e400`', "'\\u0000'", '`-0`'];
const FUNCTIONS = [
  'contains',
  'icontains',
  'starts_with',
  'ends_with',
  'length',
  'to_string',
  'to_number',
  'type',
  'keys',
  'values',
  'join',
  'not_null',
  'sort',
  'max',
  'abs',
  'no_such_function',
];

/** JMESPath-like expressions: mostly well-formed, sometimes not. */
export const jmesPathArb: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...IDENTS),
    fc.constantFrom(...LITERALS),
    fc.tuple(tie('expr'), fc.constantFrom(...IDENTS)).map(([left, right]) => `${left}.${right}`),
    fc.tuple(tie('expr'), fc.integer({ min: -3, max: 3 })).map(([left, index]) => `${left}[${index}]`),
    tie('expr').map((inner) => `${inner}[*]`),
    tie('expr').map((inner) => `${inner}[]`),
    fc.tuple(tie('expr'), tie('expr')).map(([left, filter]) => `${left}[?${filter}]`),
    fc.tuple(fc.constantFrom(...FUNCTIONS), fc.array(tie('expr'), { maxLength: 3 })).map(([name, args]) => `${name}(${args.join(', ')})`),
    fc.tuple(tie('expr'), fc.constantFrom('==', '!=', '<', '<=', '>', '>=', '&&', '||', '|'), tie('expr')).map(([a, op, b]) => `${a} ${op} ${b}`),
    tie('expr').map((inner) => `!${inner}`),
    tie('expr').map((inner) => `(${inner})`),
    fc.constant('@'),
    tie('expr').map((inner) => `{k: ${inner}}`),
    tie('expr').map((inner) => `[${inner}, ${inner}]`),
    // broken on purpose
    fc.constantFrom('(', ')', '[?', "'unterminated", '`[1,', 'a..b', 'a[', '&&', '==', '[?a==]', 'contains(', '{', '`\\u0000`'),
  ),
})).expr;

/** Expressions built to stress a parser and its error messages, within a 4096-character field. */
export const hostileExpressionArb: fc.Arbitrary<string> = fc.constantFrom(
  `${'('.repeat(2000)}a${')'.repeat(2000)}`,
  `${'!'.repeat(4000)}a`,
  `a${'.a'.repeat(2000)}`,
  `a${'[0]'.repeat(1000)}`,
  `${'['.repeat(2000)}`,
  `${'contains('.repeat(400)}`,
  `\`${'['.repeat(2000)}${']'.repeat(2000)}\``,
  `'${'x'.repeat(4000)}`,
  `a == '${'x'.repeat(300)}`,
  `${'x'.repeat(300)}(`,
  `${'a || '.repeat(800)}a`,
  `${'a[?'.repeat(1000)}`,
  `${'{a: '.repeat(800)}`,
  `${'x'.repeat(4096)}`,
  `\`${'1'.repeat(4000)}\``,
  `a[${'9'.repeat(400)}]`,
);

export const expressionArb: fc.Arbitrary<string> = choice({ weight: 4, arbitrary: jmesPathArb }, { weight: 1, arbitrary: hostileExpressionArb });

/** `on` patterns: event keys with `*` wildcards; some built for catastrophic backtracking. */
export const globArb: fc.Arbitrary<string> = choice(
  { weight: 4, arbitrary: fc.constantFrom('*', 'fuzz', 'fuzz.*', 'Issue', 'issues.*', 'push', '*.*', '**', 'fuzz.sub.*', '*.event', '') },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.constantFrom('a', '*', '.', 'fuzz', '?', '[', ']', '{', '}', ',', '\\', 'ß', '\u0000'), { minLength: 1, maxLength: 12 })
      .map((parts) => parts.join('')),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      `${'a*'.repeat(99)}b`,
      `${'*a'.repeat(99)}`,
      '*'.repeat(200),
      `${'*.'.repeat(99)}*`,
      `${'a'.repeat(199)}*`,
      `${'**'.repeat(50)}x${'**'.repeat(49)}`,
    ),
  },
);

/** A string of a field's full allowed length, or just over the echo limit. */
export function longWithin(maxLength: number): fc.Arbitrary<string> {
  const sizes = [...new Set([Math.min(maxLength, 201), Math.min(maxLength, 1000), maxLength])].filter((size) => size > 0);
  return fc
    .tuple(fc.constantFrom(...sizes), fc.constantFrom('x', 'é', '💥', 'a-', ' '))
    .map(([size, unit]) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size));
}
