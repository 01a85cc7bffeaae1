/**
 * What the interpreter uses of `@jmespath-community/jmespath`'s tree interpreter beyond its
 * typings: the class behind the exported instance, its node and result types, and the private
 * parts a subclass must reach. Kept in one place so a library upgrade that moves them breaks here.
 * @module
 */
import { TreeInterpreter, type JSONValue } from '@jmespath-community/jmespath';
import type { JSONObject } from './json-values.js';

export type Interpreter = typeof TreeInterpreter;
/** An AST node; the library does not export its node types. */
export type ExpressionNode = Parameters<Interpreter['visit']>[0];
export type VisitResult = ReturnType<Interpreter['visit']>;
// biome-ignore lint/suspicious/noExplicitAny: the JMESPath library does not export its AST node types; which members a node has depends on its `type`, and the walkers read them per type
export type AnyNode = { type: string } & Record<string, any>;

/** The library's interpreter class; only its instance is exported. */
export const BaseInterpreter = TreeInterpreter.constructor as new () => Interpreter;

/** The parts of the library's runtime `sort_by` uses (private in its typings). */
export interface LibraryRuntime {
  getTypeName(value: JSONValue): number | undefined;
  TYPE_NAME_TABLE: Record<number, string>;
}

/** What the library keeps privately on an interpreter and we must set on a scoped copy. */
export interface InterpreterInternals {
  _rootValue: JSONValue;
  _scope: { withScope(data: JSONObject): unknown };
}
