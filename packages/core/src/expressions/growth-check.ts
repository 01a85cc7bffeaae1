/**
 * The static check made when an expression is saved: refuse expressions whose values can grow
 * exponentially with their length, such as `@ | [@, @] | [@, @] | …`, where each link doubles
 * the value. Such an expression is refused when saved, with the reason, rather than left to
 * fail on the evaluation budget at every delivery.
 *
 * Every node gets a growth factor g: an upper bound of the size of its value over the larger of
 * the sizes of its input and of the payload (0 for a value of fixed size: numbers, booleans).
 * Selecting (`a.b`, `[0]`, `@`, `$`) has g = 1; chaining (`|`, `.`, projections) multiplies; a
 * multi-select adds up its members — except that members which select different fields of the
 * input (`{title: title, body: body}`) are parts of it and together count once; a literal
 * counts its values (so projecting over it multiplies); functions keep the size of their
 * arguments (`sort`, `lower`, ...), add them up (`merge`, `zip`), return a fixed size
 * (`length`, `contains`, ...), or, for `join` and `replace`, can multiply by their separator
 * or replacement. An expression is refused when some node's g exceeds
 * {@link MAX_STATIC_GROWTH}. Ordinary filters stay far below (the realistic GitHub, Linear and
 * Stripe filters of the tests are at 16 or less); `[@, @]` chained 11 times is 2048.
 *
 * Growth that depends on the data rather than on the expression (a projection of `$` over a
 * list, a `join` of a value with itself) is not refused here; the evaluation budget bounds it.
 * @module
 */
import type { JSONValue } from '@jmespath-community/jmespath';

/** Largest growth factor accepted for any part of an expression. */
export const MAX_STATIC_GROWTH = 1024;

// biome-ignore lint/suspicious/noExplicitAny: the JMESPath library does not export its AST node types; which members a node has depends on its `type`, and the walkers read them per type
type AnyNode = { type: string } & Record<string, any>;

/** Functions whose value has a fixed size whatever their arguments. */
const FIXED_SIZE = new Set([
  'abs',
  'avg',
  'ceil',
  'contains',
  'ends_with',
  'find_first',
  'find_last',
  'floor',
  'glob',
  'icontains',
  'length',
  'regex',
  'starts_with',
  'sum',
  'to_number',
  'type',
]);
/** Functions whose value is no larger than the sum of their arguments. */
const SUM_OF_ARGUMENTS = new Set(['merge', 'zip', 'not_null']);

/** How many values a literal holds. */
function literalSize(value: JSONValue): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + literalSize(item), 1);
  if (value !== null && typeof value === 'object') return Object.values(value).reduce<number>((sum, item) => sum + literalSize(item), 1);
  return 1;
}

const literalString = (node: AnyNode | undefined): string | undefined =>
  node?.type === 'Literal' && typeof node.value === 'string' ? (node.value as string) : undefined;

/** Whether a node's value is always a part of its input (a field, an element, a slice, ...). */
function selectsPart(node: AnyNode): boolean {
  switch (node.type) {
    case 'Field':
    case 'Index':
    case 'Slice':
    case 'Current':
    case 'Identity':
      return true;
    case 'Subexpression':
    case 'IndexExpression':
    case 'Pipe':
    case 'Projection':
    case 'FilterProjection':
    case 'ValueProjection':
      return selectsPart(node.left) && selectsPart(node.right);
    case 'Flatten':
      return selectsPart(node.child);
    default:
      return false;
  }
}

/** The input field a node's value is a part of, if it is one. */
function fieldOf(node: AnyNode): string | undefined {
  switch (node.type) {
    case 'Field':
      return node.name as string;
    case 'Subexpression':
    case 'IndexExpression':
    case 'Projection':
    case 'FilterProjection':
    case 'ValueProjection':
      return selectsPart(node.right) ? fieldOf(node.left) : undefined;
    case 'Flatten':
      return fieldOf(node.child);
    default:
      return undefined;
  }
}

/**
 * The analysis, as plain recursive functions (no closures per node: this runs for every filter
 * each time an automation index is built).
 */
interface Analysis {
  /** The largest growth factor seen so far (literals excepted). */
  largest: number;
}

function growth(node: AnyNode, variables: ReadonlyMap<string, number>, analysis: Analysis): number {
  const g = compute(node, variables, analysis);
  // A literal is written out in the expression: it is as large as it looks, and only what is
  // made of it can grow.
  if (g > analysis.largest && node.type !== 'Literal') analysis.largest = g;
  return g;
}

function compute(node: AnyNode, variables: ReadonlyMap<string, number>, analysis: Analysis): number {
  switch (node.type) {
    case 'Field':
    case 'Index':
    case 'Slice':
    case 'Current':
    case 'Identity':
    case 'Root':
      return 1;
    case 'Literal':
      return literalSize(node.value as JSONValue);
    case 'Variable':
      return variables.get(node.name as string) ?? 1;
    case 'Subexpression':
    case 'IndexExpression':
    case 'Pipe':
      return Math.max(1, growth(node.left, variables, analysis)) * growth(node.right, variables, analysis);
    case 'Projection':
    case 'ValueProjection':
      return Math.max(1, growth(node.left, variables, analysis)) * Math.max(1, growth(node.right, variables, analysis));
    case 'FilterProjection':
      growth(node.condition, variables, analysis);
      return Math.max(1, growth(node.left, variables, analysis)) * Math.max(1, growth(node.right, variables, analysis));
    case 'Flatten':
    case 'ExpressionReference':
      return growth(node.child, variables, analysis);
    case 'MultiSelectList':
      return multiSelect(node.children as AnyNode[], false, variables, analysis);
    case 'MultiSelectHash':
      return multiSelect(node.children as AnyNode[], true, variables, analysis);
    case 'AndExpression':
    case 'OrExpression':
      return Math.max(growth(node.left, variables, analysis), growth(node.right, variables, analysis));
    case 'Ternary':
      growth(node.condition, variables, analysis);
      return Math.max(growth(node.trueExpr, variables, analysis), growth(node.falseExpr, variables, analysis));
    case 'NotExpression':
      growth(node.child, variables, analysis);
      return 0;
    case 'Comparator':
    case 'Arithmetic':
      growth(node.left, variables, analysis);
      growth(node.right, variables, analysis);
      return 0;
    case 'Unary':
      growth(node.operand, variables, analysis);
      return 0;
    case 'LetExpression': {
      const scoped = new Map(variables);
      for (const binding of node.bindings as AnyNode[]) scoped.set(binding.variable as string, growth(binding.reference, variables, analysis));
      return growth(node.expression, scoped, analysis);
    }
    case 'Function': {
      const children = node.children as AnyNode[];
      const args: number[] = [];
      for (const child of children) args.push(growth(child, variables, analysis));
      return functionGrowth(node.name as string, children, args);
    }
    default: {
      // A node type this check does not know: count it as its children together.
      let sum = 0;
      for (const child of Object.values(node)) {
        if (child !== null && typeof child === 'object' && typeof (child as AnyNode).type === 'string') sum += growth(child as AnyNode, variables, analysis);
      }
      return sum;
    }
  }
}

function multiSelect(children: AnyNode[], hash: boolean, variables: ReadonlyMap<string, number>, analysis: Analysis): number {
  let total = 0;
  // Members selecting parts of the same field add up; different fields are disjoint parts of
  // the input, so only the most repeated field counts.
  let perField: Map<string, number> | undefined;
  let mostRepeated = 0;
  for (const member of children) {
    const child = (hash ? member.value : member) as AnyNode;
    const g = growth(child, variables, analysis);
    const field = g <= 1 ? fieldOf(child) : undefined;
    if (field === undefined) {
      total += g;
      continue;
    }
    perField ??= new Map();
    const count = (perField.get(field) ?? 0) + 1;
    perField.set(field, count);
    if (count > mostRepeated) mostRepeated = count;
  }
  return total + mostRepeated;
}

function functionGrowth(name: string, children: AnyNode[], args: number[]): number {
  if (FIXED_SIZE.has(name)) return 0;
  let largest = 0;
  let sum = 0;
  for (const g of args) {
    if (g > largest) largest = g;
    sum += g;
  }
  if (SUM_OF_ARGUMENTS.has(name)) return sum;
  switch (name) {
    case 'map':
      return Math.max(1, args[0] ?? 1) * Math.max(1, args[1] ?? 1);
    case 'join': {
      // Each element is followed by the separator.
      const separator = literalString(children[0]);
      return Math.max(1, args[1] ?? 1) * (1 + (separator !== undefined ? separator.length : (args[0] ?? 1)));
    }
    case 'replace': {
      if (children.length > 3) return args[0] ?? 1;
      // Every occurrence of `search` (between every character when it is empty) becomes `by`.
      const search = literalString(children[1]);
      const by = literalString(children[2]);
      const byLength = by !== undefined ? by.length : (args[2] ?? 1);
      return Math.max(1, args[0] ?? 1) * (1 + byLength / Math.max(1, search?.length ?? 1));
    }
    case 'pad_left':
    case 'pad_right':
    case 'sort_by':
    case 'group_by':
    case 'min_by':
    case 'max_by':
      return args[0] ?? 1;
    default:
      // lower, upper, trim*, reverse, sort, to_string, to_array, keys, values, items,
      // from_items, split, min, max: no larger than their (largest) argument.
      return largest;
  }
}

/** The largest growth factor of any part of a compiled expression. */
export function staticGrowth(ast: unknown): number {
  const analysis: Analysis = { largest: 0 };
  growth(ast as AnyNode, NO_VARIABLES, analysis);
  return analysis.largest;
}

const NO_VARIABLES: ReadonlyMap<string, number> = new Map();

/** Why an expression is refused, or `null` if its growth is within {@link MAX_STATIC_GROWTH}. */
export function growthProblem(ast: unknown): string | null {
  const growth = staticGrowth(ast);
  if (growth <= MAX_STATIC_GROWTH) return null;
  const shown = Number.isFinite(growth) ? (growth < 1e9 ? String(Math.round(growth)) : growth.toExponential(1)) : 'unboundedly many';
  return (
    `expression can build values that grow exponentially with its length: a part of it can be ` +
    `${shown} times the size of the payload (at most ${MAX_STATIC_GROWTH} allowed), because it repeats ` +
    `a value (as [@, @] does) through chained pipes, projections or multi-selects`
  );
}
