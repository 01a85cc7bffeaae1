/**
 * Webhook signature verification and signing.
 *
 * {@link verifySignature} checks a request's signature over its exact raw body bytes for every
 * registered scheme: `hmac-sha256` (custom webhooks' default), `standard-webhooks`, `stripe`,
 * `slack`, `linear`, `gitlab-token` (GitLab's secret token itself, compared in constant time)
 * and `github`. It tries every secret (rotation: the current one and the previous one during its
 * grace period), compares in constant time, enforces timestamp
 * tolerance, and answers `{ ok: false, reason, message }` instead of throwing on anything a
 * sender controls.
 *
 * The `sign*` helpers and {@link signatureHeaders} produce what a sender would send: for tests,
 * benchmarks and example senders.
 *
 * A scheme is one file under `schemes/` (its headers, delivery-id header, verification and what
 * a sender signs, with the cryptography handed in), listed once in `registry.ts`; every list of
 * scheme names derives from that list. `verify.ts` dispatches; `node-crypto.ts` is the server's
 * HMAC; `encoding.ts`, `match.ts` (constant-time matching), `headers.ts` and `timestamp.ts` are
 * the shared pieces.
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
export {
  CUSTOM_SIGNATURE_SCHEME_NAMES,
  DELIVERY_ID_HEADERS,
  SIGNATURE_SCHEME_NAMES,
  SIGNATURE_SCHEME_REGISTRY,
  signatureScheme,
  type CustomSignatureSchemeName,
} from './registry.js';
export { defineScheme, type SchemeCrypto, type SchemeInput, type SignatureSchemeDefinition, type SigningInput, type SigningPlan } from './scheme-kit/scheme.js';
export { DEFAULT_SIGNATURE_TOLERANCE_SECONDS, MAX_SIGNATURE_HEADER_LENGTH } from './scheme-kit/result.js';
export { verifySignature } from './verify.js';
export {
  signatureHeaders,
  signGithub,
  signGitlabToken,
  signHmacSha256,
  signLinear,
  signSlack,
  signStandardWebhooks,
  signStripe,
  type SignatureHeadersInput,
  type SignSlackInput,
  type SignStandardWebhooksInput,
  type SignStripeInput,
} from './signing.js';
export { DEFAULT_HMAC_SIGNATURE_HEADER } from './schemes/hmac-sha256.js';
export { GITHUB_SIGNATURE_HEADER } from './schemes/github.js';
export { GITLAB_TOKEN_HEADER } from './schemes/gitlab-token.js';
export { LINEAR_DELIVERY_HEADER, LINEAR_SIGNATURE_HEADER, LINEAR_TOLERANCE_SECONDS } from './schemes/linear.js';
export {
  standardWebhooksKey,
  STANDARD_WEBHOOKS_ID_HEADER,
  STANDARD_WEBHOOKS_SIGNATURE_HEADER,
  STANDARD_WEBHOOKS_TIMESTAMP_HEADER,
} from './schemes/standard-webhooks.js';
export { STRIPE_SIGNATURE_HEADER } from './schemes/stripe.js';
export { SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER } from './schemes/slack.js';
