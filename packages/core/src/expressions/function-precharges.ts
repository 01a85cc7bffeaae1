/**
 * What each library function costs, charged before it runs: functions whose work or output can
 * outgrow their arguments (`join`, `pad_*`, `replace`, `split`, `sort`, `merge`, ...) are
 * refused by the meter before they build anything, computed from the arguments alone.
 * @module
 */
import { BYTES_PER_ELEMENT, BYTES_PER_PROPERTY, STEPS_PER_OBJECT_BUILT, type EvaluationMeter } from './evaluation-budget.js';
import { isPlainObject, keysOf, propertySteps } from './json-values.js';

const stringArg = (value: unknown): number => (typeof value === 'string' ? value.length : 0);
const arrayArg = (value: unknown): number => (Array.isArray(value) ? value.length : 0);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const log2 = (n: number) => Math.max(1, Math.ceil(Math.log2(n + 1)));

/**
 * Charges, before a function runs, what it will cost and build, from its arguments. Arguments
 * of the wrong type are left alone: the library's type check then refuses them.
 */
export type Precharge = (args: unknown[], meter: EvaluationMeter) => void;

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

export const PRECHARGES: Record<string, Precharge> = {
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
