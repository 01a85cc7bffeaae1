/**
 * The depth bounds of an expression, checked without recursion before any recursive pass (the
 * parser, the checks of `jmespath.ts` and `growth-check.ts`, the interpreter) can meet the
 * expression, so a deeply nested filter is refused with its reason (422) rather than
 * overflowing the stack (500).
 *
 * - {@link nestingProblem}, before parsing: how deep the expression nests as written —
 *   brackets, braces and parentheses (function calls and filters included, and the brackets
 *   of a JSON literal), prefix `!` and `&`, and the ternaries and `let`s whose right side
 *   nests. The parser recurses once or more per level, so it is refused past
 *   {@link MAX_EXPRESSION_NESTING} levels before being parsed.
 * - {@link depthProblem}, after parsing: how deep the syntax tree is, chains included (every
 *   link of `a.b.c`, `a | b | c`, `a || b || c` or `a[*][*]` is a level of the tree, but not of
 *   the nesting above). The checks and the interpreter recurse once or more per level, so it is
 *   refused past {@link MAX_EXPRESSION_DEPTH} levels.
 *
 * Ordinary filters stay far below both: the realistic GitHub, Linear and Stripe filters of the
 * tests nest at most 6 levels and are at most 16 levels deep.
 * @module
 */

/** Deepest nesting accepted, as written: brackets, braces, parentheses, `!`, `&`, `?:`, `let`. */
export const MAX_EXPRESSION_NESTING = 64;
/** Deepest syntax tree accepted, every link of a chain (`.`, `|`, `||`, `&&`, projections) included. */
export const MAX_EXPRESSION_DEPTH = 256;

const OPENING = new Set(['(', '[', '{']);
const CLOSING = new Set([')', ']', '}']);
const isSpace = (char: string | undefined) => char === ' ' || char === '\t' || char === '\n' || char === '\r';
const isIdentifierChar = (char: string | undefined) => char !== undefined && /[A-Za-z0-9_$]/.test(char);

/** The index just past the string (or quoted identifier) opened by the quote at `start`. */
function skipQuoted(source: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < source.length && source[i] !== quote) i += source[i] === '\\' ? 2 : 1;
  return i + 1;
}

/**
 * How deeply a JSON literal (opened by the backquote at `start`) nests, and the index just past
 * it.
 */
function literalNesting(source: string, start: number): { nesting: number; end: number } {
  let depth = 0;
  let nesting = 0;
  let i = start + 1;
  while (i < source.length && source[i] !== '`') {
    const char = source[i] as string;
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === '"') {
      i = skipQuoted(source, i, '"');
      continue;
    }
    if (char === '[' || char === '{') {
      depth += 1;
      if (depth > nesting) nesting = depth;
    } else if ((char === ']' || char === '}') && depth > 0) depth -= 1;
    i += 1;
  }
  return { nesting, end: i + 1 };
}

/**
 * How deeply an expression nests as written (see the module comment), by a single scan: an
 * upper bound of how deep the parser recurses, whether the expression is valid or not.
 */
export function expressionNesting(source: string): number {
  /** The depth outside each open bracket. */
  const outer: number[] = [];
  let depth = 0;
  /** Prefix operators (`!`, `&`) waiting for their operand. */
  let prefixes = 0;
  let deepest = 0;
  const reach = (level: number) => {
    if (level > deepest) deepest = level;
  };
  let previous: string | undefined;
  let i = 0;
  while (i < source.length) {
    const char = source[i] as string;
    if (isSpace(char)) {
      i += 1;
      continue;
    }
    let end = i + 1;
    if (OPENING.has(char)) {
      outer.push(depth);
      depth += prefixes + 1;
      prefixes = 0;
      reach(depth);
    } else if (CLOSING.has(char)) {
      depth = outer.pop() ?? 0;
      prefixes = 0;
    } else if (char === '!' && source[i + 1] !== '=') {
      prefixes += 1;
      reach(depth + prefixes);
    } else if (char === '&' && source[i + 1] !== '&') {
      prefixes += 1;
      reach(depth + prefixes);
    } else if (char === '?' && previous !== '[') {
      // A ternary: its branches are parsed inside it, up to the end of the enclosing bracket.
      depth += 1;
      reach(depth);
    } else if (char === "'" || char === '"') {
      end = skipQuoted(source, i, char);
      prefixes = 0;
    } else if (char === '`') {
      const literal = literalNesting(source, i);
      end = literal.end;
      reach(depth + prefixes + literal.nesting);
      prefixes = 0;
    } else if (isIdentifierChar(char)) {
      while (end < source.length && isIdentifierChar(source[end])) end += 1;
      // `let $x = … in body`: the body is parsed inside it, up to the end of the enclosing bracket.
      let next = end;
      while (isSpace(source[next])) next += 1;
      if (source.slice(i, end) === 'let' && source[next] === '$') {
        depth += 1;
        reach(depth);
      }
      prefixes = 0;
    } else {
      // Operators (`.`, `|`, `&&`, `==`, `!=`, ...) and punctuation.
      if ((char === '&' || char === '|' || char === '=' || char === '!') && source[i + 1] === (char === '!' ? '=' : char)) end = i + 2;
      prefixes = 0;
    }
    previous = source[end - 1];
    i = end;
  }
  return deepest;
}

/** Why an expression nests too deeply to be parsed, or `null` if it is within {@link MAX_EXPRESSION_NESTING}. */
export function nestingProblem(source: string): string | null {
  const nesting = expressionNesting(source);
  if (nesting <= MAX_EXPRESSION_NESTING) return null;
  return (
    `expression nests ${nesting} levels deep; at most ${MAX_EXPRESSION_NESTING} are allowed ` +
    '(brackets, braces, parentheses, function calls, JSON literals, !, &, ternaries and let count)'
  );
}

/**
 * How deep a syntax tree is, counting its nodes and the nesting of its literal values, without
 * recursion.
 */
export function expressionDepth(ast: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[ast, 1]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [node, depth] = entry;
    if (depth > deepest) deepest = depth;
    for (const value of Object.values(node as object)) {
      if (value === null || typeof value !== 'object') continue;
      // A node's list of children (or a literal's array) is not a level by itself; its members are.
      if (Array.isArray(value)) {
        for (const child of value) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
        if (value.length > 0 && depth + 1 > deepest) deepest = depth + 1;
      } else {
        stack.push([value, depth + 1]);
      }
    }
  }
  return deepest;
}

/** Why an expression's syntax tree is too deep, or `null` if it is within {@link MAX_EXPRESSION_DEPTH}. */
export function depthProblem(ast: unknown): string | null {
  const depth = expressionDepth(ast);
  if (depth <= MAX_EXPRESSION_DEPTH) return null;
  return (
    `expression is ${depth} levels deep; at most ${MAX_EXPRESSION_DEPTH} are allowed ` +
    '(every link of a chain of pipes, dots, ||, && or projections is a level)'
  );
}
