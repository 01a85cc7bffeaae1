/**
 * `stripe`: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…][,v0=…]`. The signed content is
 * `${t}.${body}`; the key is the secret used as is (its UTF-8 bytes, `whsec_` prefix included).
 * Any `v1` entry matching any secret passes; other entries (`v0`, unknown keys) are ignored. More
 * than one distinct `t` is refused as malformed.
 * @module
 */
import { decodeHexDigest, toHex } from '../scheme-kit/encoding.js';
import { requireHeader } from '../scheme-kit/required-header.js';
import { anySecretMatches } from '../scheme-kit/match.js';
import { fail, VERIFIED } from '../scheme-kit/result.js';
import { defineScheme } from '../scheme-kit/scheme.js';
import { checkTimestamp, timestampText } from '../scheme-kit/timestamp.js';

export const STRIPE_SIGNATURE_HEADER = 'Stripe-Signature';

export const stripeScheme = defineScheme({
  name: 'stripe',
  customSources: true,
  summary: '`Stripe-Signature: t=…,v1=…`',
  headers: [STRIPE_SIGNATURE_HEADER],
  deliveryIdHeader: null,
  verify(input) {
    const header = requireHeader(input.headers, STRIPE_SIGNATURE_HEADER);
    if (!header.ok) return header;

    let timestamp: string | undefined;
    let versioned = 0;
    const candidates: Uint8Array[] = [];
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
    const matched = anySecretMatches(input.crypto, input.secrets, (secret) => input.crypto.hmacSha256(secret, input.body, prefix), candidates);
    return matched ? VERIFIED : fail('signature_mismatch', `${STRIPE_SIGNATURE_HEADER} does not match the request`);
  },
  sign: ({ secret, timestamp }) => {
    const t = timestampText(timestamp);
    return { key: secret, prefix: `${t}.`, headers: (digest) => ({ [STRIPE_SIGNATURE_HEADER.toLowerCase()]: `t=${t},v1=${toHex(digest)}` }) };
  },
});
