/**
 * Bitbucket's filtering and sorting of lists (`q` and `sort`, its "BBQL"), the part clients use:
 * comparisons of a dotted field with a quoted string, a number, `true`/`false`/`null` or an
 * unquoted date-time (`=`, `!=`, `~` contains, `!~`, `>`, `>=`, `<`, `<=`), joined by `AND` or
 * `OR` (no parentheses). Evaluated over the JSON Bitbucket answers, as Bitbucket does. A query
 * it cannot read is refused, as Bitbucket answers 400 for one.
 * @module
 */

type Value = string | number | boolean | null;
interface Condition {
  field: string[];
  op: '=' | '!=' | '~' | '!~' | '>' | '>=' | '<' | '<=';
  value: Value;
}

export class QueryError extends Error {}

const CONDITION =
  /^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(!=|!~|>=|<=|=|~|>|<)\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null|\d{4}-\d{2}-\d{2}[0-9T:.+Z-]*)\s*$/;

function parseCondition(text: string): Condition {
  const found = CONDITION.exec(text);
  if (!found?.[1] || !found[2] || found[3] === undefined) throw new QueryError(`Invalid query: cannot read "${text.trim()}"`);
  const raw = found[3];
  const value: Value = raw.startsWith('"')
    ? (JSON.parse(raw) as string)
    : raw === 'true' || raw === 'false'
      ? raw === 'true'
      : raw === 'null'
        ? null
        : /^-?\d+(\.\d+)?$/.test(raw)
          ? Number(raw)
          : raw;
  return { field: found[1].split('.'), op: found[2] as Condition['op'], value };
}

/** `q` read: alternatives (`OR`) of conjunctions (`AND`). */
export function parseQuery(q: string): Condition[][] {
  const outside = q.replace(/"(?:[^"\\]|\\.)*"/g, (quoted) => '_'.repeat(quoted.length));
  if (/[()]/.test(outside)) throw new QueryError('Invalid query: parentheses are not supported by this stand-in');
  const split = (text: string, shadow: string, word: string): { text: string; shadow: string }[] => {
    const parts: { text: string; shadow: string }[] = [];
    const pattern = new RegExp(`\\s${word}\\s`, 'g');
    let start = 0;
    for (const match of shadow.matchAll(pattern)) {
      parts.push({ text: text.slice(start, match.index), shadow: shadow.slice(start, match.index) });
      start = (match.index ?? 0) + match[0].length;
    }
    parts.push({ text: text.slice(start), shadow: shadow.slice(start) });
    return parts;
  };
  return split(q, outside, 'OR').map((alternative) => split(alternative.text, alternative.shadow, 'AND').map((part) => parseCondition(part.text)));
}

function valueAt(item: unknown, path: string[]): unknown {
  let value = item;
  for (const part of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  return value;
}

function holds(item: unknown, condition: Condition): boolean {
  const actual = valueAt(item, condition.field);
  const { op, value } = condition;
  if (op === '=') return actual === value || (actual === undefined && value === null);
  if (op === '!=') return !(actual === value || (actual === undefined && value === null));
  if (op === '~' || op === '!~') {
    const contains = typeof actual === 'string' && typeof value === 'string' && actual.toLowerCase().includes(value.toLowerCase());
    return op === '~' ? contains : !contains;
  }
  if (typeof actual === 'number' && typeof value === 'number') return compare(actual - value, op);
  if (typeof actual === 'string' && typeof value === 'string') {
    // Date-times compare as instants; other text as text.
    const [a, b] = [Date.parse(actual), Date.parse(value)];
    return compare(Number.isNaN(a) || Number.isNaN(b) ? actual.localeCompare(value) : a - b, op);
  }
  return false;
}

const compare = (difference: number, op: Condition['op']): boolean =>
  op === '>' ? difference > 0 : op === '>=' ? difference >= 0 : op === '<' ? difference < 0 : difference <= 0;

/** The items `q` selects. */
export function filterItems<T>(items: T[], q: string | null): T[] {
  if (q === null || q.trim() === '') return items;
  const query = parseQuery(q);
  return items.filter((item) => query.some((all) => all.every((condition) => holds(item, condition))));
}

/** The items in `sort`'s order (`field`, or `-field` for descending). */
export function sortItems<T>(items: T[], sort: string | null): T[] {
  if (sort === null || sort.trim() === '') return items;
  const descending = sort.startsWith('-');
  const field = sort.replace(/^-/, '').split('.');
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(sort.replace(/^-/, ''))) throw new QueryError(`Invalid sort: "${sort}"`);
  return [...items].sort((x, y) => {
    const [a, b] = [valueAt(x, field), valueAt(y, field)];
    const order = typeof a === 'number' && typeof b === 'number' ? a - b : String(a ?? '').localeCompare(String(b ?? ''));
    return descending ? -order : order;
  });
}
