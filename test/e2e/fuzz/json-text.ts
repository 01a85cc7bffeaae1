/**
 * JSON text with what `JSON.stringify` cannot write: raw fragments (`1e400`, 100,000 levels of
 * nesting, `NaN`) and objects with duplicate keys. Values are small trees; the bulk lives in the
 * raw fragments, so serializing never recurses deeply.
 * @module
 */

/** Written verbatim. */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object written with these entries in this order, duplicates included. */
export class Entries {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

export function toJsonText(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (value instanceof Entries) return `{${value.entries.map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`).join(',')}}`;
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : toJsonText(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A reference to one place in a value tree: the container and the key (or index) in it; `null` for the root. */
export interface Slot {
  parent: Record<string, unknown> | unknown[] | null;
  key: string | number | null;
  value: unknown;
}

/** Every place in `value` (the root first), in a stable order. */
export function slotsOf(value: unknown): Slot[] {
  const slots: Slot[] = [{ parent: null, key: null, value }];
  const walk = (node: unknown, depth: number) => {
    if (depth > 20) return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        slots.push({ parent: node, key: index, value: item });
        walk(item, depth + 1);
      });
    } else if (node !== null && typeof node === 'object' && !(node instanceof Raw) && !(node instanceof Entries)) {
      for (const [key, item] of Object.entries(node)) {
        slots.push({ parent: node as Record<string, unknown>, key, value: item });
        walk(item, depth + 1);
      }
    }
  };
  walk(value, 0);
  return slots;
}

/** A deep copy of a plain JSON-ish tree (no cycles). */
export function cloneTree<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneTree) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Raw) && !(value instanceof Entries)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cloneTree(item)])) as T;
  }
  return value;
}

/** `[[[…]]]` or `{"a":{"a":…}}`, `depth` levels. */
export function deepNesting(depth: number, kind: 'array' | 'object'): Raw {
  return kind === 'array' ? new Raw('['.repeat(depth) + ']'.repeat(depth)) : new Raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
}
