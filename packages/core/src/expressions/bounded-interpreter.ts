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
  TreeInterpreter,
  type JSONValue,
} from '@jmespath-community/jmespath';
import { compileGlob, indexOfWithin, type GlobBudget, type SearchSink } from './glob.js';
import { regexMatches, regexSteps } from './regex.js';
import {
  BYTES_PER_ELEMENT,
  BYTES_PER_PROPERTY,
  CHARS_PER_STEP,
  DEFAULT_EVALUATION_LIMITS,
  STEPS_PER_OBJECT_BUILT,
  EvaluationMeter,
  type EvaluationLimits,
} from './evaluation-budget.js';

type Interpreter = typeof TreeInterpreter;
/** An AST node; the library does not export its node types. */
export type ExpressionNode = Parameters<Interpreter['visit']>[0];
type VisitResult = ReturnType<Interpreter['visit']>;
type AnyNode = { type: string } & Record<string, any>;
type JSONObject = { [key: string]: JSONValue };

/** The library's interpreter class; only its instance is exported. */
const BaseInterpreter = TreeInterpreter.constructor as new () => Interpreter;

/** The parts of the library's runtime `sort_by` uses (private in its typings). */
interface LibraryRuntime {
  getTypeName(value: JSONValue): number | undefined;
  TYPE_NAME_TABLE: Record<number, string>;
}

/** What the library keeps privately on an interpreter and we must set on a scoped copy. */
interface InterpreterInternals {
  _rootValue: JSONValue;
  _scope: { withScope(data: JSONObject): unknown };
}

/**
 * Steps it costs to enumerate an object of `keyCount` keys once; copying its entries costs a
 * few times that. Small objects keep a fast layout in V8 (a few ns a key); past about a hundred
 * keys an object is a dictionary, where enumerating costs 15-200 ns a key and copying 100-750 ns
 * (measured, rising with the size).
 */
export function propertySteps(keyCount: number): number {
  return keyCount <= 64 ? keyCount : keyCount <= 16_384 ? keyCount * 8 : keyCount * 32;
}

/**
 * Own keys of an object, enumerated once: the values an expression works on (the payload, and
 * what evaluation builds) are never changed after they are made, so the list stays right.
 */
const keyCache = new WeakMap<object, readonly string[]>();

export function keysOf(object: object, meter?: EvaluationMeter): readonly string[] {
  let keys = keyCache.get(object);
  if (!keys) {
    keys = Object.keys(object);
    // Small objects are cheap to enumerate again; caching them would cost more than it saves.
    if (keys.length > 64) keyCache.set(object, keys);
    // Charged once done: the key count is not known before. A large object is enumerated once
    // in all (then cached), so this can happen once per object of the payload.
    meter?.step(propertySteps(keys.length));
  }
  return keys;
}

const isPlainObject = (value: unknown): value is JSONObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** JMESPath falsiness (the library's rule), enumerating an object's keys at most once. */
export function isFalse(value: unknown, meter?: EvaluationMeter): boolean {
  if (value === null || value === undefined || value === false || value === '') return true;
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.length === 0;
  return keysOf(value, meter).length === 0;
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;
const widthAt = (text: string, index: number) =>
  isHigh(text.charCodeAt(index)) && index + 1 < text.length && isLow(text.charCodeAt(index + 1)) ? 2 : 1;
const HAS_SURROGATE = /[\ud800-\udfff]/;

/** Code points in a string, lone surrogates counted as one each (what `[...text].length` gives). */
function codePointLength(text: string, meter: EvaluationMeter): number {
  if (!HAS_SURROGATE.test(text)) return text.length;
  meter.step(Math.ceil(text.length / 4));
  let count = 0;
  for (let i = 0; i < text.length; i += widthAt(text, i)) count++;
  return count;
}

/** Code units the library's default `trim` removes: `\s` and U+0085. */
let defaultTrimUnits: Uint8Array | undefined;
function trimSet(chars: string | undefined): (unit: number) => boolean {
  if (!chars) {
    if (!defaultTrimUnits) {
      defaultTrimUnits = new Uint8Array(0x10000);
      const whitespace = /[\s\x85]/;
      for (let unit = 0; unit < 0x10000; unit++) defaultTrimUnits[unit] = whitespace.test(String.fromCharCode(unit)) ? 1 : 0;
    }
    const units = defaultTrimUnits;
    return (unit) => units[unit] === 1;
  }
  // The library builds a regex character class from `chars` (escaped), without the `u` flag:
  // a set of code units.
  const units = new Set<number>();
  for (let i = 0; i < chars.length; i++) units.add(chars.charCodeAt(i));
  return (unit) => units.has(unit);
}

function trimStart(text: string, inSet: (unit: number) => boolean): string {
  let start = 0;
  while (start < text.length && inSet(text.charCodeAt(start))) start++;
  return start === 0 ? text : text.slice(start);
}

function trimEnd(text: string, inSet: (unit: number) => boolean): string {
  let end = text.length;
  while (end > 0 && inSet(text.charCodeAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

const stringArg = (value: unknown): number => (typeof value === 'string' ? value.length : 0);
const arrayArg = (value: unknown): number => (Array.isArray(value) ? value.length : 0);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const log2 = (n: number) => Math.max(1, Math.ceil(Math.log2(n + 1)));

const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * Code units JSON.stringify writes for a string (an upper bound: surrogate pairs count as
 * escaped), charging the scan that finds out.
 */
function jsonStringUnits(text: string, meter: EvaluationMeter): number {
  const units = text.length + 2;
  if (text.length <= 16) return units + 5 * text.length;
  meter.scan(text.length);
  if (!NEEDS_ESCAPE.test(text)) return units;
  meter.step(Math.ceil(text.length / 4));
  let escaped = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20 || unit === 0x22 || unit === 0x5c || (unit >= 0xd800 && unit <= 0xdfff)) escaped++;
  }
  return units + 5 * escaped;
}

/**
 * The library's string order for `sort` and `sort_by` (code points compared in turn; when one
 * string is a prefix of the other the longer is greater, and equal strings give -1), read in
 * place instead of spreading both strings into code points at every comparison. Charged by
 * what it reads.
 */
function compareCodePoints(left: string, right: string, meter: EvaluationMeter): number {
  let i = 0;
  while (i < left.length && i < right.length) {
    const a = left.codePointAt(i) as number;
    const b = right.codePointAt(i) as number;
    if (a !== b) {
      meter.step(1 + (i >> 2));
      return a > b ? 1 : -1;
    }
    i += a > 0xffff ? 2 : 1;
  }
  meter.step(1 + (i >> 2));
  return i < left.length ? 1 : -1;
}

/**
 * Charges, before a function runs, what it will cost and build, from its arguments. Arguments
 * of the wrong type are left alone: the library's type check then refuses them.
 */
type Precharge = (args: unknown[], meter: EvaluationMeter) => void;

const objectKeys = (value: unknown, meter: EvaluationMeter): number => (isPlainObject(value) ? keysOf(value, meter).length : 0);

/** `max` / `min` of strings compare with localeCompare, about 4 steps each. */
const extremeOfStrings: Precharge = ([items], meter) => {
  if (!Array.isArray(items) || typeof items[0] !== 'string') return;
  let total = 0;
  for (const item of items) total += stringArg(item);
  meter.strings(total);
  meter.step(items.length * 4);
};

const padding: Precharge = ([subject, width], meter) => {
  if (typeof subject === 'string' && isCount(width)) meter.strings(Math.max(subject.length, width), Math.max(subject.length, width));
};

const PRECHARGES: Record<string, Precharge> = {
  ends_with: ([, suffix], meter) => meter.scan(stringArg(suffix)),
  starts_with: ([, prefix], meter) => meter.scan(stringArg(prefix)),
  // A single native search over the whole subject: charged at its worst cost (~5 ns a character).
  find_first: ([subject], meter) => meter.step(Math.ceil(stringArg(subject) / 4)),
  find_last: ([subject], meter) => meter.step(Math.ceil(stringArg(subject) / 4)),
  to_number: ([subject], meter) => meter.scan(stringArg(subject)),
  lower: ([subject], meter) => meter.strings(stringArg(subject), stringArg(subject)),
  upper: ([subject], meter) => meter.strings(stringArg(subject), stringArg(subject)),
  max: extremeOfStrings,
  min: extremeOfStrings,
  map: ([, items], meter) => meter.allocate(arrayArg(items) * BYTES_PER_ELEMENT),
  sort_by: ([items], meter) => meter.arrays(arrayArg(items), arrayArg(items)),
  // Up to one new list per element.
  group_by: ([items], meter) =>
    meter.allocate(arrayArg(items) * (BYTES_PER_PROPERTY + BYTES_PER_ELEMENT), propertySteps(arrayArg(items)) + arrayArg(items) * STEPS_PER_OBJECT_BUILT),
  to_array: (_, meter) => meter.step(STEPS_PER_OBJECT_BUILT),
  from_items: ([pairs], meter) => meter.allocate(arrayArg(pairs) * BYTES_PER_PROPERTY, propertySteps(arrayArg(pairs)) * 4),
  keys: ([object], meter) => {
    const count = objectKeys(object, meter);
    meter.allocate(count * BYTES_PER_ELEMENT, propertySteps(count));
  },
  values: ([object], meter) => {
    const count = objectKeys(object, meter);
    meter.allocate(count * BYTES_PER_ELEMENT, propertySteps(count) * 2);
  },
  items: ([object], meter) => {
    // An array of [key, value] pairs: one new array per key.
    const count = objectKeys(object, meter);
    meter.allocate(count * (BYTES_PER_ELEMENT * 3 + 16), propertySteps(count) * 4 + count * STEPS_PER_OBJECT_BUILT);
  },
  merge: (objects, meter) => {
    let count = 0;
    for (const object of objects) count += objectKeys(object, meter);
    meter.allocate(count * BYTES_PER_PROPERTY, propertySteps(count) * 4);
  },
  zip: (arrays, meter) => {
    if (arrays.length === 0 || !arrays.every(Array.isArray)) return;
    const length = Math.min(...arrays.map(arrayArg));
    meter.allocate(length * (arrays.length + 2) * BYTES_PER_ELEMENT, length * (STEPS_PER_OBJECT_BUILT + arrays.length));
  },
  join: ([separator, items], meter) => {
    if (typeof separator !== 'string' || !Array.isArray(items)) return;
    let total = Math.max(0, items.length - 1) * separator.length;
    for (const item of items) total += stringArg(item);
    meter.strings(total, total);
  },
  pad_left: padding,
  pad_right: padding,
  replace: ([subject, search, by, count], meter) => {
    if (typeof subject !== 'string' || typeof search !== 'string' || typeof by !== 'string') return;
    if (count === undefined) {
      // subject.split(search).join(by)
      const pieces = search.length > 0 ? Math.floor(subject.length / search.length) + 1 : subject.length;
      const built = subject.length + pieces * by.length;
      meter.allocate(pieces * BYTES_PER_ELEMENT * 4, pieces);
      meter.strings(subject.length + built, built);
    } else if (isCount(count)) {
      // An array of `count` numbers, then `count` single replacements, each over the whole
      // (growing) subject.
      meter.arrays(count, count);
      const final = subject.length + count * Math.max(0, by.length - search.length);
      meter.strings(count * final, final);
    }
  },
  split: ([subject, search, count], meter) => {
    if (typeof subject !== 'string' || typeof search !== 'string') return;
    const pieces = search.length > 0 ? Math.floor(subject.length / search.length) + 1 : subject.length;
    meter.allocate(pieces * BYTES_PER_ELEMENT * 4, pieces);
    meter.strings(subject.length, count === undefined ? subject.length : subject.length * 2);
  },
  reverse: ([subject], meter) => {
    // The library spreads a string into code points and back: about a step a character.
    if (typeof subject === 'string') meter.allocate(subject.length * (BYTES_PER_ELEMENT * 3 + 2), subject.length);
    else meter.arrays(arrayArg(subject), arrayArg(subject));
  },
  sort: ([items], meter) => {
    if (!Array.isArray(items)) return;
    meter.arrays(items.length, items.length);
    // Numbers are sorted as strings (the library calls sort() without a comparator); strings
    // are charged per comparison (see compareCodePoints).
    if (items.length > 1 && typeof items[0] === 'number') meter.step(items.length * log2(items.length) * 4);
  },
};

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
    if (withFunctions) this.registerFunctions();
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
      if (!Object.prototype.hasOwnProperty.call(second, key)) return false;
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
   */
  private jsonUnits(text: string): number {
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

  private registerFunctions(): void {
    const meter = () => this.meter;
    const register = (name: string, fn: (args: JSONValue[]) => JSONValue, signature: Parameters<Interpreter['runtime']['registerFunction']>[2]) =>
      this.runtime.registerFunction(name, fn as never, signature, { override: true });
    const globBudget: GlobBudget = { charge: (steps) => meter().step(steps) };

    register(
      'icontains',
      ([subject, search]) => {
        const needle = this.lowerCase(search as string);
        if (typeof subject === 'string') return this.includes(this.lowerCase(subject), needle);
        return (subject as string[]).some((item) => this.lowerCase(item) === needle);
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
        if (typeof subject === 'string' && typeof search === 'string') return this.includes(subject, search);
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
        const runtime = this.runtime as unknown as LibraryRuntime;
        const node = expression as unknown as ExpressionNode;
        const requiredType = runtime.getTypeName(this.visit(node, sorted[0] as JSONValue) as JSONValue);
        if (requiredType !== undefined && requiredType !== TYPE_NUMBER && requiredType !== TYPE_STRING) {
          throw new Error(`Invalid type: unexpected type (${runtime.TYPE_NAME_TABLE[requiredType]})`);
        }
        const invalid = (item: JSONValue) =>
          new Error(`Invalid type: expected (${runtime.TYPE_NAME_TABLE[requiredType as number]}), received ${runtime.TYPE_NAME_TABLE[runtime.getTypeName(item) as number]}`);
        return sorted.sort((a, b) => {
          const keyA = this.visit(node, a) as JSONValue;
          const keyB = this.visit(node, b) as JSONValue;
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
    const trimFunction = (left: boolean, right: boolean) => ([subject, chars]: JSONValue[]) => {
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
          if (typeof item === 'string') units += this.jsonUnits(item);
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
}
