/**
 * `github`: GitHub's `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw body with the
 * webhook secret. The `sha256=` prefix is required (as GitHub sends it, lower-case); the legacy
 * SHA-1 `X-Hub-Signature` header is not accepted.
 * @module
 */
import { anySecretMatches } from './constant-time.js';
import { decodeHexDigest, hmacSha256 } from './digest.js';
import { requireHeader } from './headers.js';
import { fail, VERIFIED } from './result.js';
import type { SchemeInput } from './scheme.js';
import type { SignableBody, VerifyResult } from './types.js';

export const GITHUB_SIGNATURE_HEADER = 'X-Hub-Signature-256';
const PREFIX = 'sha256=';

/** GitHub's `X-Hub-Signature-256` value for a body: `sha256=<lowercase hex>`. */
export function signGithub(secret: string, body: SignableBody): string {
  return PREFIX + hmacSha256(secret, body).toString('hex');
}

export function verifyGithub(input: SchemeInput): VerifyResult {
  const header = requireHeader(input.headers, GITHUB_SIGNATURE_HEADER);
  if (!header.ok) return header;
  if (!header.value.startsWith(PREFIX)) return fail('malformed_signature', `${GITHUB_SIGNATURE_HEADER} header must start with "sha256="`);
  const candidate = decodeHexDigest(header.value.slice(PREFIX.length));
  if (candidate === undefined) return fail('malformed_signature', `${GITHUB_SIGNATURE_HEADER} header is not "sha256=" and a hex digest`);
  const matched = anySecretMatches(input.secrets, (secret) => hmacSha256(secret, input.body), [candidate]);
  return matched ? VERIFIED : fail('signature_mismatch', `${GITHUB_SIGNATURE_HEADER} does not match the request body`);
}
