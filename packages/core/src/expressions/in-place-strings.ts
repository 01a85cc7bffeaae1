/**
 * String work the interpreter does in place, on code units: the library spreads strings into
 * code points (a copy per call, and per comparison in a sort) and trims with a regex that
 * backtracks (quadratic time for `trim_right`). These give the library's results in linear
 * time, charged to the meter by what they read.
 * @module
 */
import type { EvaluationMeter } from './evaluation-budget.js';

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;
export const widthAt = (text: string, index: number) =>
  isHigh(text.charCodeAt(index)) && index + 1 < text.length && isLow(text.charCodeAt(index + 1)) ? 2 : 1;
const HAS_SURROGATE = /[\ud800-\udfff]/;

/** Code points in a string, lone surrogates counted as one each (what `[...text].length` gives). */
export function codePointLength(text: string, meter: EvaluationMeter): number {
  if (!HAS_SURROGATE.test(text)) return text.length;
  meter.step(Math.ceil(text.length / 4));
  let count = 0;
  for (let i = 0; i < text.length; i += widthAt(text, i)) count++;
  return count;
}

/** Code units the library's default `trim` removes: `\s` and U+0085. */
let defaultTrimUnits: Uint8Array | undefined;
export function trimSet(chars: string | undefined): (unit: number) => boolean {
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

export function trimStart(text: string, inSet: (unit: number) => boolean): string {
  let start = 0;
  while (start < text.length && inSet(text.charCodeAt(start))) start++;
  return start === 0 ? text : text.slice(start);
}

export function trimEnd(text: string, inSet: (unit: number) => boolean): string {
  let end = text.length;
  while (end > 0 && inSet(text.charCodeAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * Code units JSON.stringify writes for a string (an upper bound: surrogate pairs count as
 * escaped), charging the scan that finds out.
 */
export function jsonStringUnits(text: string, meter: EvaluationMeter): number {
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
export function compareCodePoints(left: string, right: string, meter: EvaluationMeter): number {
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
