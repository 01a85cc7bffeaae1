/**
 * Reading the headers a signature scheme needs, without trusting their shape.
 * @module
 */
import { fail, MAX_SIGNATURE_HEADER_LENGTH } from './result.js';
import type { SignatureRequestHeaders, VerifyFailure } from './types.js';

/** A header's value, or why it cannot be used. */
export type HeaderRead = { ok: true; value: string } | VerifyFailure;

/**
 * The first value of a header (looked up lower-cased; own properties only, so a header named
 * like an `Object.prototype` member never resolves to it), with surrounding whitespace trimmed.
 */
export function firstHeaderValue(headers: SignatureRequestHeaders, name: string): string | undefined {
  const key = name.toLowerCase();
  if (!Object.hasOwn(headers, key)) return undefined;
  const raw: unknown = headers[key];
  const value: unknown = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value.trim() : undefined;
}

/**
 * A header the scheme requires: absent → `missing_signature`; empty or longer than
 * {@link MAX_SIGNATURE_HEADER_LENGTH} → `malformed_signature`.
 * @param display the header's name as shown in messages, e.g. `Stripe-Signature`.
 */
export function requireHeader(headers: SignatureRequestHeaders, display: string): HeaderRead {
  const value = firstHeaderValue(headers, display);
  if (value === undefined) return fail('missing_signature', `Missing ${display} header`);
  if (value === '') return fail('malformed_signature', `${display} header is empty`);
  if (value.length > MAX_SIGNATURE_HEADER_LENGTH) return fail('malformed_signature', `${display} header is too long`);
  return { ok: true, value };
}
