/**
 * JMESPath as the platform uses it: the community implementation plus the functions the
 * filter language adds, `icontains`, `glob` and `regex` (linear time, see `regex.ts`).
 * Expressions are compiled once and checked for depth (see `nesting-check.ts`: before parsing,
 * as every pass over the tree recurses), for unknown functions, for exponential growth (see
 * `growth-check.ts`) and for literal `regex` patterns that do not compile, so a bad filter is
 * refused when it is saved, not when an event arrives. Every evaluation is bounded in time and
 * memory (see `evaluation-budget.ts`): past its budget it throws {@link EvaluationBudgetError}.
 * @module
 */
import { compile, type JSONValue } from '@jmespath-community/jmespath';
import { BoundedInterpreter, isFalse } from './bounded-interpreter.js';
import { DEFAULT_EVALUATION_LIMITS, type EvaluationLimits } from './evaluation-budget.js';
import { growthProblem } from './growth-check.js';
import { depthProblem, nestingProblem } from './nesting-check.js';
import { compileRegex } from './regex.js';

export {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationBudgetError,
  MAX_EVALUATION_BYTES,
  MAX_EVALUATION_MS,
  MAX_EVALUATION_STEPS,
  type BudgetLimit,
  type EvaluationLimits,
} from './evaluation-budget.js';
export { MAX_STATIC_GROWTH } from './growth-check.js';
export { MAX_EXPRESSION_DEPTH, MAX_EXPRESSION_NESTING } from './nesting-check.js';

/** Longest expression accepted (filters and event-key expressions). */
export const MAX_EXPRESSION_LENGTH = 4096;

export type { JSONValue };

type ExpressionNode = ReturnType<typeof compile>;

export interface CompiledExpression {
  readonly source: string;
  /**
   * Evaluates against a payload. Throws on a runtime error such as a wrong argument type, and
   * {@link EvaluationBudgetError} past the evaluation budget (`limits`, by default
   * {@link DEFAULT_EVALUATION_LIMITS}).
   */
  evaluate(data: unknown, limits?: Readonly<EvaluationLimits>): JSONValue;
  /** Whether the value is truthy (JMESPath truthiness), within the same budget; throws as `evaluate`. */
  test(data: unknown, limits?: Readonly<EvaluationLimits>): boolean;
}

let shared: BoundedInterpreter | undefined;

/**
 * The interpreter (with `icontains` and `glob`) evaluations run on. Evaluation is synchronous,
 * so one serves the process; a nested evaluation (which nothing does today) gets its own.
 */
function interpreter(): BoundedInterpreter {
  shared ??= new BoundedInterpreter();
  return shared.busy ? new BoundedInterpreter() : shared;
}

export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

/** Compiles an expression, or throws {@link ExpressionError} with a message fit for a user. */
/**
 * A hint for the common slip of writing a string between backticks (`` `crash` ``): in JMESPath a
 * backtick holds a JSON literal, so a bare word there does not parse, while `'crash'` is a string.
 */
function literalHint(source: string, message: string): string {
  if (!/JSON literal|`/.test(message)) return '';
  const word = /`\s*([A-Za-z][\w .-]*?)\s*`/.exec(source)?.[1];
  if (word === undefined) return '';
  return ` — between backticks JMESPath takes JSON (\`"${word}"\`); for a string write '${word}' in single quotes`;
}

export function compileExpression(source: string): CompiledExpression {
  const runtime = interpreter();
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  // Depth first, without recursion: the parser and every check below recurse per level.
  const nesting = nestingProblem(source);
  if (nesting) throw new ExpressionError(nesting);
  let ast: ExpressionNode;
  try {
    ast = compile(source);
  } catch (error) {
    // A backstop: within the nesting bound the parser stays far from the stack's end.
    if (error instanceof RangeError) throw new ExpressionError('expression nests too deeply to be parsed');
    throw new ExpressionError(`invalid JMESPath expression: ${(error as Error).message}${literalHint(source, (error as Error).message)}`);
  }
  const depth = depthProblem(ast);
  if (depth) throw new ExpressionError(depth);
  const unknown = unknownFunction(ast, runtime.runtime);
  if (unknown) throw new ExpressionError(`unknown function ${unknown}()`);
  const growth = growthProblem(ast);
  if (growth) throw new ExpressionError(growth);
  const badPattern = literalRegexProblem(ast);
  if (badPattern) throw new ExpressionError(badPattern);
  return {
    source,
    evaluate: (data, limits = DEFAULT_EVALUATION_LIMITS) => interpreter().evaluate(ast, data as JSONValue, limits),
    test: (data, limits = DEFAULT_EVALUATION_LIMITS) => interpreter().test(ast, data as JSONValue, limits),
  };
}

/** JMESPath truthiness: false, null, "", [] and {} are false; everything else (0 included) is true. */
export function isTruthy(value: JSONValue): boolean {
  return !isFalse(value);
}

/** Why a pattern given literally to `regex()` cannot compile, for the first one that cannot. */
function literalRegexProblem(node: unknown): string | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const record = node as Record<string, unknown>;
  if (record.type === 'Function' && record.name === 'regex' && Array.isArray(record.children)) {
    const pattern = record.children[1] as { type?: string; value?: unknown } | undefined;
    if (pattern?.type === 'Literal' && typeof pattern.value === 'string') {
      try {
        compileRegex(pattern.value);
      } catch (error) {
        return (error as Error).message;
      }
    }
  }
  for (const value of Object.values(record)) {
    for (const child of Array.isArray(value) ? value : [value]) {
      const found = literalRegexProblem(child);
      if (found) return found;
    }
  }
  return undefined;
}

/** The name of the first function the expression calls that is not registered. */
function unknownFunction(node: unknown, functions: { isRegistered(name: string): boolean }): string | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const record = node as Record<string, unknown>;
  if (record.type === 'Function' && typeof record.name === 'string' && !functions.isRegistered(record.name)) {
    return record.name;
  }
  for (const value of Object.values(record)) {
    const children = Array.isArray(value) ? value : [value];
    for (const child of children) {
      const found = unknownFunction(child, functions);
      if (found) return found;
    }
  }
  return undefined;
}
