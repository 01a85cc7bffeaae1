/**
 * The JMESPath interpreter with an evaluation budget. It extends the library's tree interpreter
 * (whose `visit` recurses through `this.visit`, so every node of the expression passes here) and
 * changes no result: each node visited costs a step, and the nodes and functions whose work or
 * output can outgrow their inputs are charged to the {@link EvaluationMeter} before they run:
 *
 * - flatten (`[]`): the size of the flattened array, which a multi-select repeating one array
 *   many times can make far larger than anything in the payload;
 * - string slices: read in place instead of spreading the whole string into code points;
 * - `==` / `!=` on lists and objects: compared by a deep equality of our own, one step per
 *   value compared (values built by nested multi-selects share parts, so their expanded size
 *   can be exponential while their memory is not);
 * - truthiness of objects, `keys`, `values`, `items`, `merge`, `*` (object projection):
 *   past about a hundred keys V8 keeps an object as a dictionary, where enumerating costs
 *   15-200 ns a key and copying up to 750 ns, so keys are enumerated once per object (cached)
 *   and charged by count;
 * - functions: `join`, `pad_*`, `replace`, `split`, `to_string`, `sort`, `lower`/`upper`,
 *   `reverse`, ... are charged by the size of what they build, computed from their arguments.
 *
 * `length`, `contains`, `sort`, `sort_by`, `trim`, `trim_left` and `trim_right` are replaced by
 * equivalents giving the same results that do not copy strings into code points (`length`,
 * `sort`, `sort_by`), search long strings a chunk at a time (`contains`) or backtrack (the
 * library's `trim_right` regex takes quadratic time).
 *
 * The nodes are charged here; the functions' charges are in `function-precharges.ts`, the
 * replaced and added functions in `bounded-functions.ts`.
 * @module
 */
import type { JSONValue } from '@jmespath-community/jmespath';
import { registerBoundedFunctions, type FunctionHost } from './bounded-functions.js';
import {
  BYTES_PER_ELEMENT,
  BYTES_PER_PROPERTY,
  DEFAULT_EVALUATION_LIMITS,
  STEPS_PER_OBJECT_BUILT,
  EvaluationMeter,
  type EvaluationLimits,
} from './evaluation-budget.js';
import { PRECHARGES } from './function-precharges.js';
import { indexOfWithin, type SearchSink } from './glob.js';
import { jsonStringUnits, widthAt } from './in-place-strings.js';
import { isFalse, isPlainObject, keysOf, type JSONObject } from './json-values.js';
import { BaseInterpreter, type AnyNode, type ExpressionNode, type Interpreter, type InterpreterInternals, type VisitResult } from './tree-interpreter.js';

// This module is the interpreter's entry point: what callers use alongside it is exported here too.
export { isFalse, keysOf, propertySteps } from './json-values.js';
export type { ExpressionNode } from './tree-interpreter.js';

/** The interpreter every compiled expression evaluates with. */
export class BoundedInterpreter extends BaseInterpreter {
  meter: EvaluationMeter;
  /** The last long string lower-cased by `icontains`, and its lower-case form (this evaluation only). */
  private lowerSource: string | null = null;
  private lowerResult = '';
  private readonly jsonUnitCache = new Map<string, number>();
  private readonly searchSink: SearchSink = { searched: (units) => this.meter.scan(units) };
  /** True while an evaluation runs. */
  busy = false;

  constructor(meter: EvaluationMeter = new EvaluationMeter(), withFunctions = true) {
    super();
    this.meter = meter;
    if (withFunctions) registerBoundedFunctions(this);
  }

  /** Evaluates a compiled expression within `limits`; throws {@link EvaluationBudgetError} past them. */
  evaluate(node: ExpressionNode, data: JSONValue, limits: Readonly<EvaluationLimits> = DEFAULT_EVALUATION_LIMITS): JSONValue {
    return this.run(node, data, limits, false);
  }

  /** Whether the expression's value is truthy, within `limits` (the truthiness check included). */
  test(node: ExpressionNode, data: JSONValue, limits: Readonly<EvaluationLimits> = DEFAULT_EVALUATION_LIMITS): boolean {
    return this.run(node, data, limits, true) as boolean;
  }

  private run(node: ExpressionNode, data: JSONValue, limits: Readonly<EvaluationLimits>, truthiness: boolean): JSONValue {
    if (this.busy) throw new Error('BoundedInterpreter is not reentrant');
    this.busy = true;
    this.meter.start(limits);
    try {
      const result = this.search(node, data) as JSONValue;
      return truthiness ? !isFalse(result, this.meter) : result;
    } finally {
      this.busy = false;
      // Hold on to nothing of this evaluation's payload.
      if (this.lowerSource !== null) {
        this.lowerSource = null;
        this.lowerResult = '';
      }
      if (this.jsonUnitCache.size > 0) this.jsonUnitCache.clear();
      (this as unknown as InterpreterInternals)._rootValue = null;
    }
  }

  override withScope(scope: JSONObject): Interpreter {
    // As the library does, but keeping our class and meter, and sharing the runtime instead of
    // building a new one per `let` (the library's functions are bound to the parent's runtime
    // anyway, so this changes nothing else).
    this.meter.step(2 * STEPS_PER_OBJECT_BUILT);
    const scoped = Object.create(BoundedInterpreter.prototype) as BoundedInterpreter;
    const own = this as unknown as InterpreterInternals;
    const internals = scoped as unknown as InterpreterInternals;
    scoped.runtime = this.runtime;
    scoped.meter = this.meter;
    scoped.lowerSource = null;
    scoped.lowerResult = '';
    internals._rootValue = own._rootValue;
    internals._scope = own._scope.withScope(scope) as InterpreterInternals['_scope'];
    return scoped;
  }

  override visit(node: ExpressionNode, value: JSONValue | ExpressionNode): VisitResult {
    const meter = this.meter;
    meter.step();
    const n = node as AnyNode;
    switch (n.type) {
      case 'Field':
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
        return (value as JSONObject)[n.name as string] ?? null;
      case 'Literal':
        return n.value as JSONValue;
      case 'Current':
      case 'Identity':
        return value;
      case 'Subexpression': {
        const result = this.visit(n.left, value);
        return result != null ? (this.visit(n.right, result) ?? null) : null;
      }
      case 'Pipe':
      case 'IndexExpression':
        return this.visit(n.right, this.visit(n.left, value) as JSONValue);
      case 'Flatten':
        return this.flatten(n, value as JSONValue);
      case 'Slice':
        if (typeof value === 'string') return this.sliceString(n, value);
        if (Array.isArray(value)) {
          const { start, stop, step } = this.computeSliceParams(value.length, n as never);
          const count = Math.max(0, Math.ceil((stop - start) / step));
          meter.arrays(count, count);
        }
        return super.visit(node, value);
      case 'Comparator':
        return this.compare(n, value as JSONValue);
      case 'Function':
        return this.callFunctionNode(n, value as JSONValue);
      case 'AndExpression': {
        const result = this.visit(n.left, value);
        return isFalse(result, meter) ? result : this.visit(n.right, value);
      }
      case 'OrExpression': {
        const result = this.visit(n.left, value);
        return isFalse(result, meter) ? this.visit(n.right, value) : result;
      }
      case 'NotExpression':
        return isFalse(this.visit(n.child, value), meter);
      case 'Ternary':
        return isFalse(this.visit(n.condition, value), meter) ? this.visit(n.falseExpr, value) : this.visit(n.trueExpr, value);
      case 'FilterProjection':
        return this.filterProjection(n, value as JSONValue);
      case 'ValueProjection':
        return this.valueProjection(n, value as JSONValue);
      case 'Projection': {
        const result = super.visit(node, value);
        if (Array.isArray(result)) meter.allocate(result.length * BYTES_PER_ELEMENT);
        return result;
      }
      case 'MultiSelectList':
        meter.allocate((n.children as unknown[]).length * BYTES_PER_ELEMENT, STEPS_PER_OBJECT_BUILT);
        return super.visit(node, value);
      case 'MultiSelectHash':
        meter.allocate((n.children as unknown[]).length * BYTES_PER_PROPERTY, STEPS_PER_OBJECT_BUILT);
        return super.visit(node, value);
      default:
        return super.visit(node, value);
    }
  }

  private flatten(node: AnyNode, value: JSONValue): JSONValue {
    const original = this.visit(node.child, value);
    if (!Array.isArray(original)) return null;
    // The result's size is known before building it: refuse it before it is allocated.
    let total = 0;
    for (const item of original) total += Array.isArray(item) ? item.length : 1;
    this.meter.arrays(original.length + total, total);
    const flattened = new Array<JSONValue>(total);
    let next = 0;
    for (const item of original) {
      if (Array.isArray(item)) for (let i = 0; i < item.length; i++) flattened[next++] = item[i] as JSONValue;
      else flattened[next++] = item;
    }
    return flattened;
  }

  /** `text[start:stop:step]` over code points, as the library computes it, without spreading `text`. */
  private sliceString(node: AnyNode, text: string): string {
    // The library computes the bounds from the length in code units and then indexes the code
    // points; indexes past the last code point give nothing.
    const { start, stop, step } = this.computeSliceParams(text.length, node as never);
    const count = step > 0 ? Math.max(0, Math.ceil((stop - start) / step)) : Math.max(0, Math.ceil((start - stop) / -step));
    if (count === 0) return '';
    const stride = Math.abs(step);
    const lowest = step > 0 ? start : start - (count - 1) * stride;
    const highest = step > 0 ? start + (count - 1) * stride : start;
    const scanned = Math.min(text.length, 2 * (highest + 1));
    this.meter.allocate(count * (BYTES_PER_ELEMENT + 24), Math.ceil(scanned / 4) + count);
    const pieces: string[] = [];
    let index = 0;
    for (let offset = 0; offset < text.length && index <= highest; index++) {
      const width = widthAt(text, offset);
      if (index >= lowest && (index - lowest) % stride === 0) pieces.push(text.slice(offset, offset + width));
      offset += width;
    }
    if (step < 0) pieces.reverse();
    return pieces.join('');
  }

  private compare(node: AnyNode, value: JSONValue): JSONValue {
    const first = this.visit(node.left, value) as JSONValue;
    const second = this.visit(node.right, value) as JSONValue;
    switch (node.name) {
      case 'EQ':
        return this.equal(first, second);
      case 'NE':
        return !this.equal(first, second);
    }
    if (typeof first !== 'number' || typeof second !== 'number') return null;
    switch (node.name) {
      case 'GT':
        return first > second;
      case 'GTE':
        return first >= second;
      case 'LT':
        return first < second;
      case 'LTE':
        return first <= second;
    }
    return null;
  }

  /** The library's strictDeepEqual, one step per value compared. */
  private equal(first: JSONValue, second: JSONValue): boolean {
    if (first === second) return true;
    if (typeof first !== 'object' || typeof second !== 'object' || first === null || second === null) return false;
    const meter = this.meter;
    meter.step();
    if (Array.isArray(first) || Array.isArray(second)) {
      if (!Array.isArray(first) || !Array.isArray(second) || first.length !== second.length) return false;
      meter.arrays(first.length);
      for (let i = 0; i < first.length; i++) if (!this.equal(first[i] as JSONValue, second[i] as JSONValue)) return false;
      return true;
    }
    const firstKeys = keysOf(first, meter);
    const secondKeys = keysOf(second, meter);
    if (firstKeys.length !== secondKeys.length) return false;
    meter.step(firstKeys.length);
    for (const key of firstKeys) {
      if (!Object.hasOwn(second, key)) return false;
      if (!this.equal(first[key] as JSONValue, second[key] as JSONValue)) return false;
    }
    return true;
  }

  private filterProjection(node: AnyNode, value: JSONValue): JSONValue {
    const base = this.visit(node.left, value);
    if (!Array.isArray(base)) return null;
    const results: JSONValue[] = [];
    for (const element of base) {
      if (isFalse(this.visit(node.condition, element), this.meter)) continue;
      const result = this.visit(node.right, element) as JSONValue;
      if (result !== null) results.push(result);
    }
    this.meter.allocate(results.length * BYTES_PER_ELEMENT);
    return results;
  }

  private valueProjection(node: AnyNode, value: JSONValue): JSONValue {
    const base = this.visit(node.left, value);
    if (!isPlainObject(base)) return null;
    const keys = keysOf(base, this.meter);
    this.meter.step(keys.length);
    const collected: JSONValue[] = [];
    for (const key of keys) {
      const current = this.visit(node.right, base[key] as JSONValue) as JSONValue;
      if (current !== null) collected.push(current);
    }
    this.meter.allocate(collected.length * BYTES_PER_ELEMENT);
    return collected;
  }

  private callFunctionNode(node: AnyNode, value: JSONValue): VisitResult {
    const args: unknown[] = [];
    for (const child of node.children as ExpressionNode[]) {
      const arg = this.visit(child, value);
      // Type checks and most functions read every element of an array argument.
      if (Array.isArray(arg)) this.meter.arrays(arg.length);
      args.push(arg);
    }
    PRECHARGES[node.name as string]?.(args, this.meter);
    return this.runtime.callFunction(node.name as string, args as JSONValue[]) as VisitResult;
  }

  /**
   * {@link jsonStringUnits}, remembered for long strings during one evaluation (a value built of
   * repeated parts repeats its strings; a Map keeps a string's hash, so a repeat costs nothing).
   * Used by `to_string` (see {@link FunctionHost}).
   */
  jsonUnits(text: string): number {
    if (text.length < 4096) return jsonStringUnits(text, this.meter);
    const known = this.jsonUnitCache.get(text);
    if (known !== undefined) return known;
    const units = jsonStringUnits(text, this.meter);
    this.jsonUnitCache.set(text, units);
    return units;
  }

  /** `text.includes(needle)`, searched a chunk at a time so the meter can stop a slow search. */
  includes(text: string, needle: string): boolean {
    return indexOfWithin(text, needle, 0, text.length, this.searchSink) >= 0;
  }

  /** `text.toLowerCase()`, charged, remembering the last long one (filters often test one text several times). */
  lowerCase(text: string): string {
    if (text.length < 256) {
      this.meter.strings(text.length, text.length);
      return text.toLowerCase();
    }
    if (text === this.lowerSource) return this.lowerResult;
    this.meter.strings(text.length, text.length);
    this.lowerResult = text.toLowerCase();
    this.lowerSource = text;
    return this.lowerResult;
  }
}
