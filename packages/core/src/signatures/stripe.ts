/**
 * `stripe`: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…][,v0=…]`. The signed content is
 * `${t}.${body}`; the key is the secret used as is (its UTF-8 bytes, `whsec_` prefix included).
 * Any `v1` entry matching any secret passes; other entries (`v0`, unknown keys) are ignored. More
 * than one distinct `t` is refused as malformed.
 * @module
 */
import { anySecretMatches } from './constant-time.js';
import { decodeHexDigest, hmacSha256 } from './digest.js';
import { requireHeader } from './headers.js';
import { fail, VERIFIED } from './result.js';
import type { SchemeInput } from './scheme.js';
import { checkTimestamp, timestampText } from './timestamp.js';
import type { SignableBody, VerifyResult } from './types.js';

export const STRIPE_SIGNATURE_HEADER = 'Stripe-Signature';

export interface SignStripeInput {
  secret: string;
  /** Unix seconds. */
  timestamp: number;
  body: SignableBody;
}

/** A `Stripe-Signature` value: `t=<timestamp>,v1=<lowercase hex>`. */
export function signStripe({ secret, timestamp, body }: SignStripeInput): string {
  const t = timestampText(timestamp);
  return `t=${t},v1=${hmacSha256(secret, body, `${t}.`).toString('hex')}`;
}

export function verifyStripe(input: SchemeInput): VerifyResult {
  const header = requireHeader(input.headers, STRIPE_SIGNATURE_HEADER);
  if (!header.ok) return header;

  let timestamp: string | undefined;
  let versioned = 0;
  const candidates: Buffer[] = [];
  for (const item of header.value.split(',')) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined && timestamp !== value) return fail('malformed_signature', `${STRIPE_SIGNATURE_HEADER} header has more than one timestamp`);
      timestamp = value;
    } else if (key === 'v1') {
      versioned += 1;
      const digest = decodeHexDigest(value);
      if (digest !== undefined) candidates.push(digest);
    }
  }
  if (timestamp === undefined) return fail('malformed_signature', `${STRIPE_SIGNATURE_HEADER} header has no timestamp (t=)`);
  if (versioned === 0) return fail('malformed_signature', `${STRIPE_SIGNATURE_HEADER} header has no v1 signature`);
  if (candidates.length === 0) return fail('malformed_signature', `${STRIPE_SIGNATURE_HEADER} header has no well-formed v1 signature`);

  const checked = checkTimestamp(timestamp, input.nowSeconds, input.toleranceSeconds, `${STRIPE_SIGNATURE_HEADER} timestamp`);
  if (typeof checked !== 'string') return checked;

  const prefix = `${checked}.`;
  const matched = anySecretMatches(input.secrets, (secret) => hmacSha256(secret, input.body, prefix), candidates);
  return matched ? VERIFIED : fail('signature_mismatch', `${STRIPE_SIGNATURE_HEADER} does not match the request`);
}
