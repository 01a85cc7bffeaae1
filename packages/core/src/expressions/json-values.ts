/**
 * JSON values as the interpreter sees them: objects' keys enumerated once and charged by count,
 * and JMESPath falsiness on top of that. Shared by the interpreter's nodes, the functions'
 * precharges and `to_string`, which all walk objects of the payload.
 * @module
 */
import type { JSONValue } from '@jmespath-community/jmespath';
import type { EvaluationMeter } from './evaluation-budget.js';

export type JSONObject = { [key: string]: JSONValue };

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

export const isPlainObject = (value: unknown): value is JSONObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** JMESPath falsiness (the library's rule), enumerating an object's keys at most once. */
export function isFalse(value: unknown, meter?: EvaluationMeter): boolean {
  if (value === null || value === undefined || value === false || value === '') return true;
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.length === 0;
  return keysOf(value, meter).length === 0;
}
