/**
 * {@link verifySignature}: one entry point for every scheme.
 * @module
 */
import { nodeSchemeCrypto } from './node-crypto.js';
import { signatureScheme } from './registry.js';
import { DEFAULT_SIGNATURE_TOLERANCE_SECONDS } from './scheme-kit/result.js';
import { unixSeconds } from './scheme-kit/timestamp.js';
import type { VerifyInput, VerifyResult } from './types.js';

/**
 * Verifies a webhook request's signature over its raw body bytes.
 *
 * Every secret is tried (the current one and, during a rotation grace period, the previous one),
 * against every signature the request carries; digests are compared in constant time; each
 * secret's HMAC is computed once. Timestamped schemes (`standard-webhooks`, `stripe`, `slack`,
 * `linear`) also require the timestamp to be an integer within `toleranceSeconds` of `now`, in the past or
 * the future.
 *
 * Never throws on anything the sender controls (headers, body): a missing, malformed or wrong
 * signature is a `{ ok: false }` result whose `message` is safe to return to the sender. It throws
 * a `TypeError` only on caller errors: an unknown scheme, no secrets, an invalid `now` or tolerance,
 * a body that is not a `Uint8Array`.
 *
 * @example
 * ```ts
 * import { verifySignature } from '@agent-platform/core';
 *
 * const result = verifySignature({
 *   scheme: 'stripe',
 *   headers: request.headers,          // Node style: lower-cased names
 *   body: rawBody,                      // the exact bytes received, before any JSON parsing
 *   secrets: previous ? [current, previous] : [current],
 *   now: new Date(),
 * });
 * if (!result.ok) return reply.status(401).send({ error: result.reason, message: result.message });
 * ```
 */
export function verifySignature(input: VerifyInput): VerifyResult {
  const scheme = signatureScheme(input.scheme);
  if (scheme === undefined) throw new TypeError(`signatures: unknown scheme ${JSON.stringify(input.scheme)}`);
  if (input.secrets.length === 0) throw new TypeError('signatures: at least one secret is required');
  if (!(input.body instanceof Uint8Array)) throw new TypeError('signatures: `body` must be the raw body bytes (a Uint8Array)');
  const toleranceSeconds = input.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) throw new TypeError('signatures: `toleranceSeconds` must be a non-negative number');
  return scheme.verify({
    headers: input.headers,
    body: input.body,
    secrets: input.secrets,
    signatureHeader: input.signatureHeader,
    nowSeconds: unixSeconds(input.now),
    toleranceSeconds,
    crypto: nodeSchemeCrypto,
  });
}
