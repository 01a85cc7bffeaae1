/**
 * HMAC-SHA256 over (optional prefix +) raw body bytes, and strict decoding of received digests.
 * @module
 */
import { createHmac, type BinaryLike, type KeyObject } from 'node:crypto';
import type { SignableBody } from './types.js';

/** Length of an HMAC-SHA256 digest in bytes. */
export const SHA256_BYTES = 32;

const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
const BASE64_DIGEST = /^[A-Za-z0-9+/]{43}=$/;

/**
 * HMAC-SHA256 of `prefix` (UTF-8) followed by `body`. The body is fed to the HMAC as is: no copy,
 * no concatenation with the prefix.
 */
export function hmacSha256(key: BinaryLike | KeyObject, body: SignableBody, prefix?: string): Buffer {
  const hmac = createHmac('sha256', key);
  if (prefix !== undefined) hmac.update(prefix, 'utf8');
  if (typeof body === 'string') hmac.update(body, 'utf8');
  else hmac.update(body);
  return hmac.digest();
}

/** A received hex digest (either case) as bytes; undefined unless it is exactly 64 hex digits. */
export function decodeHexDigest(text: string): Buffer | undefined {
  return HEX_DIGEST.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/** A received standard-base64 digest as bytes; undefined unless it encodes exactly 32 bytes (44 characters, one `=`). */
export function decodeBase64Digest(text: string): Buffer | undefined {
  return BASE64_DIGEST.test(text) ? Buffer.from(text, 'base64') : undefined;
}
