/**
 * JMESPath as the platform uses it: the community implementation plus the two functions the
 * filter language adds, `icontains` and `glob`. Expressions are compiled once and checked for
 * unknown functions, so a bad filter is refused when it is saved, not when an event arrives.
 * @module
 */
import {
  TYPE_ARRAY_STRING,
  TYPE_STRING,
  TreeInterpreter,
  compile,
  isRegistered,
  registerFunction,
  type JSONValue,
} from '@jmespath-community/jmespath';
import { globMatch } from './glob.js';

/** Longest expression accepted (filters and event-key expressions). */
export const MAX_EXPRESSION_LENGTH = 4096;

export type { JSONValue };

type ExpressionNode = ReturnType<typeof compile>;

export interface CompiledExpression {
  readonly source: string;
  /** Evaluates against a payload. Throws on a runtime error such as a wrong argument type. */
  evaluate(data: unknown): JSONValue;
}

let registered = false;

/** Registers `icontains` and `glob` once per process. */
function ensureFunctions(): void {
  if (registered) return;
  registered = true;
  registerFunction(
    'icontains',
    ([subject, search]) => {
      const needle = (search as string).toLowerCase();
      if (typeof subject === 'string') return subject.toLowerCase().includes(needle);
      return (subject as string[]).some((item) => item.toLowerCase() === needle);
    },
    [{ types: [TYPE_STRING, TYPE_ARRAY_STRING] }, { types: [TYPE_STRING] }],
    { override: true },
  );
  registerFunction('glob', ([subject, pattern]) => globMatch(subject as string, pattern as string), [
    { types: [TYPE_STRING] },
    { types: [TYPE_STRING] },
  ], { override: true });
}

export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
}

/** Compiles an expression, or throws {@link ExpressionError} with a message fit for a user. */
export function compileExpression(source: string): CompiledExpression {
  ensureFunctions();
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  let ast: ExpressionNode;
  try {
    ast = compile(source);
  } catch (error) {
    throw new ExpressionError(`invalid JMESPath expression: ${(error as Error).message}`);
  }
  const unknown = unknownFunction(ast);
  if (unknown) throw new ExpressionError(`unknown function ${unknown}()`);
  return {
    source,
    evaluate: (data) => TreeInterpreter.search(ast, data as JSONValue),
  };
}

/** JMESPath truthiness: false, null, "", [] and {} are false; everything else (0 included) is true. */
export function isTruthy(value: JSONValue): boolean {
  if (value === null || value === false || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** The name of the first function the expression calls that is not registered. */
function unknownFunction(node: unknown): string | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  const record = node as Record<string, unknown>;
  if (record.type === 'Function' && typeof record.name === 'string' && !isRegistered(record.name)) {
    return record.name;
  }
  for (const value of Object.values(record)) {
    const children = Array.isArray(value) ? value : [value];
    for (const child of children) {
      const found = unknownFunction(child);
      if (found) return found;
    }
  }
  return undefined;
}
