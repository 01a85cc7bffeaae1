/**
 * `hmac-sha256`, the default for custom webhooks: the HMAC-SHA256 of the raw body, hex-encoded,
 * in a header the webhook names (default `X-Signature-256`).
 *
 * Accepted: 64 hex digits, lower- or upper-case, optionally prefixed with `sha256=` (the prefix
 * matched case-insensitively), e.g. `sha256=96fe…` or `96FE…`. {@link signHmacSha256} produces
 * the canonical form: plain lowercase hex, no prefix.
 * @module
 */
import { anySecretMatches } from './constant-time.js';
import { decodeHexDigest, hmacSha256 } from './digest.js';
import { requireHeader } from './headers.js';
import { fail, VERIFIED } from './result.js';
import type { SchemeInput } from './scheme.js';
import type { SignableBody, VerifyResult } from './types.js';

/** The header `hmac-sha256` reads when the webhook names none (matches the webhook schema's default). */
export const DEFAULT_HMAC_SIGNATURE_HEADER = 'X-Signature-256';

const PREFIX = 'sha256=';

/** The `hmac-sha256` signature of a body: lowercase hex, without a `sha256=` prefix (verification accepts both). */
export function signHmacSha256(secret: string, body: SignableBody): string {
  return hmacSha256(secret, body).toString('hex');
}

export function verifyHmacSha256(input: SchemeInput): VerifyResult {
  const display = input.signatureHeader ?? DEFAULT_HMAC_SIGNATURE_HEADER;
  const header = requireHeader(input.headers, display);
  if (!header.ok) return header;
  const value = header.value;
  const hex = value.slice(0, PREFIX.length).toLowerCase() === PREFIX ? value.slice(PREFIX.length) : value;
  const candidate = decodeHexDigest(hex);
  if (candidate === undefined) return fail('malformed_signature', `${display} header is not a hex HMAC-SHA256 digest`);
  const matched = anySecretMatches(input.secrets, (secret) => hmacSha256(secret, input.body), [candidate]);
  return matched ? VERIFIED : fail('signature_mismatch', `${display} does not match the request body`);
}
