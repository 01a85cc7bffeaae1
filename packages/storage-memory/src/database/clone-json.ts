/**
 * Deep copy of a JSON value (the records are plain JSON: objects, arrays, strings, numbers,
 * booleans, null). Several times faster than `structuredClone` on small records, which matters:
 * every read and write through the memory adapter copies, and ingest does thousands a second.
 *
 * Recursive down to {@link RECURSION_DEPTH} levels — every record there is — and without
 * recursion below that, so a value nested any depth is copied without overflowing the stack.
 */
export function cloneJson<T>(value: T): T {
  return cloneRecursive(value, 0);
}

/** Levels copied by recursion before the rest of a value is copied with an explicit stack. */
export const RECURSION_DEPTH = 256;

function cloneRecursive<T>(value: T, depth: number): T {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= RECURSION_DEPTH) return cloneIterative(value);
  const below = depth + 1;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index += 1) copy[index] = cloneRecursive(value[index], below);
    return copy as T;
  }
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (Object.hasOwn(value, key)) copy[key] = cloneRecursive((value as Record<string, unknown>)[key], below);
  }
  return copy as T;
}

/** The same copy with an explicit stack of (source, copy) pairs still to fill. */
function cloneIterative<T>(value: T & object): T {
  const root: Record<string, unknown> | unknown[] = Array.isArray(value) ? new Array(value.length) : {};
  const pending: [Record<string, unknown> | unknown[], Record<string, unknown> | unknown[]][] = [[value as Record<string, unknown>, root]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [source, copy] = pair;
    if (Array.isArray(source)) {
      for (let index = 0; index < source.length; index += 1) (copy as unknown[])[index] = shell(source[index], pending);
    } else {
      for (const key in source) {
        if (Object.hasOwn(source, key)) (copy as Record<string, unknown>)[key] = shell(source[key], pending);
      }
    }
  }
  return root as T;
}

/** A primitive as it is; an empty array or object queued to be filled from `item`. */
function shell(item: unknown, pending: [Record<string, unknown> | unknown[], Record<string, unknown> | unknown[]][]): unknown {
  if (item === null || typeof item !== 'object') return item;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(item) ? new Array(item.length) : {};
  pending.push([item as Record<string, unknown>, copy]);
  return copy;
}
