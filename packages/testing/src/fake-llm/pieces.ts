/**
 * Helpers shared by the two wire formats: ids and the splitting of text into stream deltas.
 * @module
 */
import { randomBytes } from 'node:crypto';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random id of `length` letters and digits, as the providers' ids look. */
export function randomId(length: number): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return id;
}

/**
 * Splits `value` into `parts` pieces of about equal length (fewer when it is shorter), never
 * cutting a surrogate pair. Concatenated, the pieces give back `value`.
 */
export function splitInPieces(value: string, parts: number): string[] {
  const chars = Array.from(value);
  const count = Math.max(1, Math.min(parts, chars.length));
  const pieces: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const start = Math.floor((n * chars.length) / count);
    const end = Math.floor(((n + 1) * chars.length) / count);
    pieces.push(chars.slice(start, end).join(''));
  }
  return pieces;
}

/** Text deltas of a streamed answer: a few pieces, none empty. */
export function textDeltas(text: string): string[] {
  return text.length === 0 ? [] : splitInPieces(text, 3);
}

/** Argument fragments of a streamed tool call: at least two pieces when the JSON allows it. */
export function jsonFragments(json: string): string[] {
  return splitInPieces(json, json.length >= 24 ? 3 : 2);
}

/** Seconds since the epoch. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
