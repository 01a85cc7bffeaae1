/**
 * Digests as text, without Node's `Buffer` (the scheme files also run in browsers): strict
 * decoding of received digests, encoding of computed ones, and secrets given in base64.
 * @module
 */

/** Length of an HMAC-SHA256 digest in bytes. */
export const SHA256_BYTES = 32;

const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
const BASE64_DIGEST = /^[A-Za-z0-9+/]{43}=$/;
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A received hex digest (either case) as bytes; undefined unless it is exactly 64 hex digits. */
export function decodeHexDigest(text: string): Uint8Array | undefined {
  if (!HEX_DIGEST.test(text)) return undefined;
  const bytes = new Uint8Array(SHA256_BYTES);
  for (let i = 0; i < SHA256_BYTES; i++) bytes[i] = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** A received standard-base64 digest as bytes; undefined unless it encodes exactly 32 bytes (44 characters, one `=`). */
export function decodeBase64Digest(text: string): Uint8Array | undefined {
  return BASE64_DIGEST.test(text) ? base64Bytes(text) : undefined;
}

/**
 * Base64 or base64url text as bytes, read the way Node's `Buffer.from(text, 'base64')` reads it
 * (so secrets stored before keep their keys): characters outside both alphabets are skipped,
 * the first `=` ends the data, and bits short of a whole byte at the end are dropped.
 */
export function base64Bytes(text: string): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let count = 0;
  for (const char of text) {
    if (char === '=') break;
    const value = char === '-' ? 62 : char === '_' ? 63 : BASE64_ALPHABET.indexOf(char);
    if (value < 0) continue;
    bits = ((bits << 6) | value) & 0xffffff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push((bits >> count) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

export function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] as number;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    const triple = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += BASE64_ALPHABET.charAt((triple >> 18) & 63) + BASE64_ALPHABET.charAt((triple >> 12) & 63);
    out += b === undefined ? '=' : BASE64_ALPHABET.charAt((triple >> 6) & 63);
    out += c === undefined ? '=' : BASE64_ALPHABET.charAt(triple & 63);
  }
  return out;
}
