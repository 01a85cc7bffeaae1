/**
 * {@link signatureHeaders}: the headers a sender attaches to a body, for any registered scheme,
 * and the per-scheme conveniences built on it. What tests, benchmarks and example senders use to
 * produce requests that {@link verifySignature} accepts. Each scheme's file says what is signed
 * (its `SigningPlan`); this file computes the HMAC with node:crypto.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { nodeSchemeCrypto } from './node-crypto.js';
import { signatureScheme } from './registry.js';
import type { SignatureSchemeDefinition, SigningInput } from './scheme-kit/scheme.js';
import { GITHUB_SIGNATURE_HEADER, githubScheme } from './schemes/github.js';
import { GITLAB_TOKEN_HEADER, gitlabTokenScheme } from './schemes/gitlab-token.js';
import { DEFAULT_HMAC_SIGNATURE_HEADER, hmacSha256Scheme } from './schemes/hmac-sha256.js';
import { LINEAR_SIGNATURE_HEADER, linearScheme } from './schemes/linear.js';
import { SLACK_SIGNATURE_HEADER, slackScheme } from './schemes/slack.js';
import { STANDARD_WEBHOOKS_SIGNATURE_HEADER, standardWebhooksScheme } from './schemes/standard-webhooks.js';
import { STRIPE_SIGNATURE_HEADER, stripeScheme } from './schemes/stripe.js';
import { unixSeconds } from './scheme-kit/timestamp.js';
import type { SignableBody, SignatureSchemeName } from './types.js';

export interface SignatureHeadersInput {
  scheme: SignatureSchemeName;
  secret: string;
  body: SignableBody;
  /** Signing time; timestamped schemes send it (whole unix seconds). */
  now: Date;
  /** For 'hmac-sha256' only: the header to put the signature in. Default `X-Signature-256`. */
  signatureHeader?: string;
  /** For 'standard-webhooks' only: the `webhook-id`. Default `msg_` and a random UUID. */
  id?: string;
}

const encoder = new TextEncoder();
const bytesOf = (body: SignableBody): Uint8Array => (typeof body === 'string' ? encoder.encode(body) : body);

/** The headers `scheme` sends for `input`, names lower-cased. */
function sign(scheme: SignatureSchemeDefinition, input: SigningInput): Record<string, string> {
  const plan = scheme.sign(input);
  return plan.headers(nodeSchemeCrypto.hmacSha256(plan.key, input.body, plan.prefix));
}

/** One header's value of what `scheme` sends. */
const signedHeader = (scheme: SignatureSchemeDefinition, header: string, input: SigningInput): string => sign(scheme, input)[header.toLowerCase()] as string;

/**
 * The signature headers for a body, names lower-cased (ready to pass as `headers` to
 * {@link verifySignature}, or to send). `hmac-sha256` puts plain lowercase hex in its header.
 *
 * @example
 * ```ts
 * const body = Buffer.from(JSON.stringify({ type: 'order.created' }));
 * const headers = signatureHeaders({ scheme: 'slack', secret, body, now: new Date() });
 * // { 'x-slack-signature': 'v0=…', 'x-slack-request-timestamp': '1700000000' }
 * ```
 */
export function signatureHeaders(input: SignatureHeadersInput): Record<string, string> {
  const scheme = signatureScheme(input.scheme);
  if (scheme === undefined) throw new TypeError(`signatures: unknown scheme ${JSON.stringify(input.scheme)}`);
  return sign(scheme, {
    secret: input.secret,
    body: bytesOf(input.body),
    timestamp: unixSeconds(input.now),
    id: input.id ?? `msg_${randomUUID()}`,
    signatureHeader: input.signatureHeader,
  });
}

/** The `hmac-sha256` signature of a body: lowercase hex, without a `sha256=` prefix (verification accepts both). */
export function signHmacSha256(secret: string, body: SignableBody): string {
  return signedHeader(hmacSha256Scheme, DEFAULT_HMAC_SIGNATURE_HEADER, { secret, body: bytesOf(body), timestamp: 0, id: '' });
}

/** GitHub's `X-Hub-Signature-256` value for a body: `sha256=<lowercase hex>`. */
export function signGithub(secret: string, body: SignableBody): string {
  return signedHeader(githubScheme, GITHUB_SIGNATURE_HEADER, { secret, body: bytesOf(body), timestamp: 0, id: '' });
}

/** Linear's `Linear-Signature` value for a body: lowercase hex (the body carries its own `webhookTimestamp`). */
export function signLinear(secret: string, body: SignableBody): string {
  return signedHeader(linearScheme, LINEAR_SIGNATURE_HEADER, { secret, body: bytesOf(body), timestamp: 0, id: '' });
}

/** GitLab's `X-Gitlab-Token` value: the secret token itself (GitLab does not sign the body). */
export function signGitlabToken(secret: string): string {
  return signedHeader(gitlabTokenScheme, GITLAB_TOKEN_HEADER, { secret, body: new Uint8Array(0), timestamp: 0, id: '' });
}

export interface SignStandardWebhooksInput {
  secret: string;
  /** The `webhook-id`. */
  id: string;
  /** Unix seconds, the `webhook-timestamp`. */
  timestamp: number;
  body: SignableBody;
}

/** One `webhook-signature` entry: `v1,<base64>`. */
export function signStandardWebhooks({ secret, id, timestamp, body }: SignStandardWebhooksInput): string {
  return signedHeader(standardWebhooksScheme, STANDARD_WEBHOOKS_SIGNATURE_HEADER, { secret, body: bytesOf(body), timestamp, id });
}

export interface SignStripeInput {
  secret: string;
  /** Unix seconds. */
  timestamp: number;
  body: SignableBody;
}

/** A `Stripe-Signature` value: `t=<timestamp>,v1=<lowercase hex>`. */
export function signStripe({ secret, timestamp, body }: SignStripeInput): string {
  return signedHeader(stripeScheme, STRIPE_SIGNATURE_HEADER, { secret, body: bytesOf(body), timestamp, id: '' });
}

export interface SignSlackInput {
  secret: string;
  /** Unix seconds, the `X-Slack-Request-Timestamp`. */
  timestamp: number;
  body: SignableBody;
}

/** An `X-Slack-Signature` value: `v0=<lowercase hex>`. */
export function signSlack({ secret, timestamp, body }: SignSlackInput): string {
  return signedHeader(slackScheme, SLACK_SIGNATURE_HEADER, { secret, body: bytesOf(body), timestamp, id: '' });
}
