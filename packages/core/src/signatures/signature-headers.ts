/**
 * {@link signatureHeaders}: the headers a sender attaches to a body, for any scheme. What tests,
 * benchmarks and example senders use to produce requests that {@link verifySignature} accepts.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { GITHUB_SIGNATURE_HEADER, signGithub } from './github.js';
import { DEFAULT_HMAC_SIGNATURE_HEADER, signHmacSha256 } from './hmac-sha256.js';
import { SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER, signSlack } from './slack.js';
import {
  signStandardWebhooks,
  STANDARD_WEBHOOKS_ID_HEADER,
  STANDARD_WEBHOOKS_SIGNATURE_HEADER,
  STANDARD_WEBHOOKS_TIMESTAMP_HEADER,
} from './standard-webhooks.js';
import { signStripe, STRIPE_SIGNATURE_HEADER } from './stripe.js';
import { unixSeconds } from './timestamp.js';
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
  const { secret, body } = input;
  switch (input.scheme) {
    case 'hmac-sha256':
      return { [(input.signatureHeader ?? DEFAULT_HMAC_SIGNATURE_HEADER).toLowerCase()]: signHmacSha256(secret, body) };
    case 'github':
      return { [GITHUB_SIGNATURE_HEADER.toLowerCase()]: signGithub(secret, body) };
    case 'standard-webhooks': {
      const id = input.id ?? `msg_${randomUUID()}`;
      const timestamp = unixSeconds(input.now);
      return {
        [STANDARD_WEBHOOKS_ID_HEADER]: id,
        [STANDARD_WEBHOOKS_TIMESTAMP_HEADER]: String(timestamp),
        [STANDARD_WEBHOOKS_SIGNATURE_HEADER]: signStandardWebhooks({ secret, id, timestamp, body }),
      };
    }
    case 'stripe':
      return { [STRIPE_SIGNATURE_HEADER.toLowerCase()]: signStripe({ secret, timestamp: unixSeconds(input.now), body }) };
    case 'slack': {
      const timestamp = unixSeconds(input.now);
      return {
        [SLACK_SIGNATURE_HEADER.toLowerCase()]: signSlack({ secret, timestamp, body }),
        [SLACK_TIMESTAMP_HEADER.toLowerCase()]: String(timestamp),
      };
    }
    default: {
      const unknown: never = input.scheme;
      throw new TypeError(`signatures: unknown scheme ${JSON.stringify(unknown)}`);
    }
  }
}
