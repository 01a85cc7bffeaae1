/**
 * The functions the interpreter registers over the library's own: `icontains`, `glob` and
 * `regex`, which the library lacks, and `contains`, `sort`, `sort_by`, `length`, `trim*` and
 * `to_string` with the same results but bounded work (no copying strings into code points, no
 * backtracking regex, a `to_string` the meter can stop part way).
 * @module
 */
import {
  TYPE_ANY,
  TYPE_ARRAY,
  TYPE_ARRAY_NUMBER,
  TYPE_ARRAY_STRING,
  TYPE_EXPREF,
  TYPE_NUMBER,
  TYPE_OBJECT,
  TYPE_STRING,
  type JSONValue,
} from '@jmespath-community/jmespath';
import { CHARS_PER_STEP, type EvaluationMeter } from './evaluation-budget.js';
import { compileGlob, type GlobBudget } from './glob.js';
import { codePointLength, compareCodePoints, trimEnd, trimSet, trimStart } from './in-place-strings.js';
import { isPlainObject, keysOf, propertySteps, type JSONObject } from './json-values.js';
import { regexMatches, regexSteps } from './regex.js';
import type { ExpressionNode, Interpreter, LibraryRuntime, VisitResult } from './tree-interpreter.js';

/**
 * What the functions use of the interpreter they are registered on. They read `meter` at each
 * call rather than keeping the one they were registered with: the interpreter's field can be
 * reassigned.
 */
export interface FunctionHost {
  readonly meter: EvaluationMeter;
  readonly runtime: Interpreter['runtime'];
  visit(node: ExpressionNode, value: JSONValue | ExpressionNode): VisitResult;
  /** `text.includes(needle)`, searched so the meter can stop a slow search. */
  includes(text: string, needle: string): boolean;
  /** `text.toLowerCase()`, charged. */
  lowerCase(text: string): string;
  /** Code units `JSON.stringify` writes for a string, charged. */
  jsonUnits(text: string): number;
}

/** Registers the functions on `host`'s runtime, replacing the library's of the same name. */
export function registerBoundedFunctions(host: FunctionHost): void {
  const meter = () => host.meter;
  const register = (name: string, fn: (args: JSONValue[]) => JSONValue, signature: Parameters<Interpreter['runtime']['registerFunction']>[2]) =>
    host.runtime.registerFunction(name, fn as never, signature, { override: true });
  const globBudget: GlobBudget = { charge: (steps) => meter().step(steps) };

  register(
    'icontains',
    ([subject, search]) => {
      const needle = host.lowerCase(search as string);
      if (typeof subject === 'string') return host.includes(host.lowerCase(subject), needle);
      return (subject as string[]).some((item) => host.lowerCase(item) === needle);
    },
    [{ types: [TYPE_STRING, TYPE_ARRAY_STRING] }, { types: [TYPE_STRING] }],
  );
  register(
    'glob',
    ([subject, pattern]) => {
      // Compiling a pattern builds a token per character (patterns are cached; long ones, which
      // only a payload value can give, are not).
      meter().arrays(0, 2 * (pattern as string).length);
      return compileGlob(pattern as string).matches(subject as string, globBudget);
    },
    [{ types: [TYPE_STRING] }, { types: [TYPE_STRING] }],
  );
  register(
    'regex',
    ([subject, pattern]) => {
      // Charged before matching: RE2 runs in time linear in the subject, a step per character
      // for every 32 pattern characters, plus the compile when the pattern is not cached.
      meter().step(regexSteps(subject as string, pattern as string));
      return regexMatches(subject as string, pattern as string);
    },
    [{ types: [TYPE_STRING] }, { types: [TYPE_STRING] }],
  );
  // The library's `contains`, with the string search done a chunk at a time.
  register(
    'contains',
    ([subject, search]) => {
      if (Array.isArray(subject)) return subject.includes(search as JSONValue);
      if (typeof subject === 'string' && typeof search === 'string') return host.includes(subject, search);
      return null;
    },
    [{ types: [TYPE_STRING, TYPE_ARRAY] }, { types: [TYPE_ANY] }],
  );
  // The library's `sort` and `sort_by`, comparing strings without copying them.
  register(
    'sort',
    ([items]) => {
      const list = items as JSONValue[];
      if (list.length === 0) return list;
      if (typeof list[0] === 'string') return [...list].sort((a, b) => compareCodePoints(a as string, b as string, meter()));
      return [...list].sort();
    },
    [{ types: [TYPE_ARRAY_STRING, TYPE_ARRAY_NUMBER] }],
  );
  register(
    'sort_by',
    ([items, expression]) => {
      const sorted = (items as JSONValue[]).slice(0);
      if (sorted.length === 0) return sorted;
      const runtime = host.runtime as unknown as LibraryRuntime;
      const node = expression as unknown as ExpressionNode;
      const requiredType = runtime.getTypeName(host.visit(node, sorted[0] as JSONValue) as JSONValue);
      if (requiredType !== undefined && requiredType !== TYPE_NUMBER && requiredType !== TYPE_STRING) {
        throw new Error(`Invalid type: unexpected type (${runtime.TYPE_NAME_TABLE[requiredType]})`);
      }
      const invalid = (item: JSONValue) =>
        new Error(
          `Invalid type: expected (${runtime.TYPE_NAME_TABLE[requiredType as number]}), received ${runtime.TYPE_NAME_TABLE[runtime.getTypeName(item) as number]}`,
        );
      return sorted.sort((a, b) => {
        const keyA = host.visit(node, a) as JSONValue;
        const keyB = host.visit(node, b) as JSONValue;
        if (runtime.getTypeName(keyA) !== requiredType) throw invalid(keyA);
        else if (runtime.getTypeName(keyB) !== requiredType) throw invalid(keyB);
        if (requiredType === TYPE_STRING) return compareCodePoints(keyA as string, keyB as string, meter());
        return (keyA as number) - (keyB as number);
      });
    },
    [{ types: [TYPE_ARRAY] }, { types: [TYPE_EXPREF] }],
  );
  // Same results as the library's, without copying the string into code points.
  register(
    'length',
    ([subject]) => {
      if (typeof subject === 'string') {
        meter().scan(subject.length);
        return codePointLength(subject, meter());
      }
      if (Array.isArray(subject)) return subject.length;
      return keysOf(subject as JSONObject, meter()).length;
    },
    [{ types: [TYPE_STRING, TYPE_ARRAY, TYPE_OBJECT] }],
  );
  // Same results as the library's regex-based trims, in linear time.
  const trimFunction =
    (left: boolean, right: boolean) =>
    ([subject, chars]: JSONValue[]) => {
      const text = subject as string;
      meter().strings(text.length + (typeof chars === 'string' ? chars.length : 0), text.length);
      const inSet = trimSet(chars as string | undefined);
      let result = right ? trimEnd(text, inSet) : text;
      if (left) result = trimStart(result, inSet);
      return result;
    };
  const trimSignature = [{ types: [TYPE_STRING] }, { types: [TYPE_STRING], optional: true }];
  register('trim', trimFunction(true, true), trimSignature);
  register('trim_left', trimFunction(true, false), trimSignature);
  register('trim_right', trimFunction(false, true), trimSignature);
  // JSON.stringify with a replacer that charges every value as it is written, so a value whose
  // text is too large (say, a list repeating itself through nested multi-selects) is stopped
  // part way, before its text is built.
  register(
    'to_string',
    ([subject]) => {
      if (typeof subject === 'string') return subject;
      const charge = meter();
      // JSON.stringify with a replacer costs about 1 µs a call plus 100 ns a value.
      charge.step(64);
      return JSON.stringify(subject, (key: string, item: unknown) => {
        charge.step(4);
        let units = key.length + 4;
        if (typeof item === 'string') units += host.jsonUnits(item);
        else if (typeof item === 'number') units += 12;
        else if (isPlainObject(item)) charge.step(propertySteps(keysOf(item, charge).length));
        // Writing JSON costs 1-3 ns a character, more than copying.
        charge.allocate(units * 2, 1 + Math.ceil(units / (CHARS_PER_STEP / 2)));
        return item;
      });
    },
    [{ types: [TYPE_ANY] }],
  );
}
