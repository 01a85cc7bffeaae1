/**
 * Deep copy of a JSON value (the records are plain JSON: objects, arrays, strings, numbers,
 * booleans, null). Several times faster than `structuredClone` on small records, which matters:
 * every read and write through the memory adapter copies, and ingest does thousands a second.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (Object.hasOwn(value, key)) copy[key] = cloneJson((value as Record<string, unknown>)[key]);
  }
  return copy as T;
}
