/**
 * Timestamps of the timestamped schemes: strict parsing and the tolerance window.
 * @module
 */
import { fail } from './result.js';
import type { VerifyFailure } from './types.js';

const DIGITS = /^[0-9]+$/;

/** Whole unix seconds of a date (floored, as the providers' own libraries do). Throws on an invalid date: that is a caller error. */
export function unixSeconds(date: Date): number {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) throw new TypeError('signatures: `now` is not a valid Date');
  return Math.floor(ms / 1000);
}

/**
 * Checks a timestamp header value against `now`. A timestamp is a string of ASCII digits (unix
 * seconds); anything else (signs, decimals, exponents, spaces) is `malformed_signature`. It must be
 * within `toleranceSeconds` of now in either direction; exactly at the limit is accepted.
 * @returns the timestamp's digits as received (what gets signed), or the failure.
 */
export function checkTimestamp(raw: string, nowSeconds: number, toleranceSeconds: number, display: string): string | VerifyFailure {
  if (!DIGITS.test(raw)) return fail('malformed_signature', `${display} is not an integer unix timestamp`);
  // Digits beyond safe-integer range are still an integer, just absurdly far from now.
  const seconds = raw.length > 15 ? Number.POSITIVE_INFINITY : Number(raw);
  const skew = seconds - nowSeconds;
  if (Math.abs(skew) > toleranceSeconds) {
    const where = skew > 0 ? 'in the future' : 'in the past';
    return fail('timestamp_out_of_tolerance', `${display} is too far ${where} (tolerance ${toleranceSeconds} s)`);
  }
  return raw;
}

/** A timestamp to sign, as its decimal text. Throws unless it is a non-negative integer (a caller error, not request input). */
export function timestampText(timestamp: number): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new TypeError('signatures: `timestamp` must be a non-negative integer of unix seconds');
  return String(timestamp);
}
