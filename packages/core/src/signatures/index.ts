/**
 * Webhook signature verification and signing, on `node:crypto` alone.
 *
 * {@link verifySignature} checks a request's signature over its exact raw body bytes for one of
 * five schemes: `hmac-sha256` (custom webhooks' default), `github`, `standard-webhooks`,
 * `stripe` and `slack`. It tries every secret (rotation: the current one and the previous one
 * during its grace period), compares in constant time, enforces timestamp tolerance, and answers
 * `{ ok: false, reason, message }` instead of throwing on anything a sender controls.
 *
 * The `sign*` helpers and {@link signatureHeaders} produce what a sender would send: for tests,
 * benchmarks and example senders.
 *
 * One file per concern: `verify.ts` dispatches; one file per scheme (`hmac-sha256.ts`, `github.ts`,
 * `standard-webhooks.ts`, `stripe.ts`, `slack.ts`); `digest.ts` (HMAC, digest decoding),
 * `constant-time.ts` (matching), `headers.ts`, `timestamp.ts` are the shared pieces.
 * @module
 */
export type {
  SignableBody,
  SignatureRequestHeaders,
  SignatureSchemeName,
  VerifyFailure,
  VerifyFailureReason,
  VerifyInput,
  VerifyResult,
} from './types.js';
export { SIGNATURE_SCHEME_NAMES } from './types.js';
export { DEFAULT_SIGNATURE_TOLERANCE_SECONDS, MAX_SIGNATURE_HEADER_LENGTH } from './result.js';
export { verifySignature } from './verify.js';
export { signatureHeaders, type SignatureHeadersInput } from './signature-headers.js';
export { DEFAULT_HMAC_SIGNATURE_HEADER, signHmacSha256 } from './hmac-sha256.js';
export { GITHUB_SIGNATURE_HEADER, signGithub } from './github.js';
export {
  signStandardWebhooks,
  standardWebhooksKey,
  STANDARD_WEBHOOKS_ID_HEADER,
  STANDARD_WEBHOOKS_SIGNATURE_HEADER,
  STANDARD_WEBHOOKS_TIMESTAMP_HEADER,
  type SignStandardWebhooksInput,
} from './standard-webhooks.js';
export { signStripe, STRIPE_SIGNATURE_HEADER, type SignStripeInput } from './stripe.js';
export { signSlack, SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER, type SignSlackInput } from './slack.js';
