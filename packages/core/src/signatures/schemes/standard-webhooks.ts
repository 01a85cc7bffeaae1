/**
 * `standard-webhooks` (https://www.standardwebhooks.com): headers `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature`, a space-separated list of
 * `<version>,<signature>` entries of which only `v1` (base64 HMAC-SHA256) is understood; other
 * versions are ignored. The signed content is `${id}.${timestamp}.${body}`; the key is the secret
 * base64-decoded after stripping a `whsec_` prefix (base64url is read too: generated secrets use it).
 * @module
 */
import { base64Bytes, decodeBase64Digest, toBase64 } from '../scheme-kit/encoding.js';
import { requireHeader } from '../scheme-kit/required-header.js';
import { anySecretMatches } from '../scheme-kit/match.js';
import { fail, VERIFIED } from '../scheme-kit/result.js';
import { defineScheme } from '../scheme-kit/scheme.js';
import { checkTimestamp, timestampText } from '../scheme-kit/timestamp.js';

export const STANDARD_WEBHOOKS_ID_HEADER = 'webhook-id';
export const STANDARD_WEBHOOKS_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_WEBHOOKS_SIGNATURE_HEADER = 'webhook-signature';

const SECRET_PREFIX = 'whsec_';
const V1 = 'v1,';

/** The HMAC key of a Standard Webhooks secret: base64(url) decoded, after any `whsec_` prefix. */
export function standardWebhooksKey(secret: string): Uint8Array {
  return base64Bytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
}

export const standardWebhooksScheme = defineScheme({
  name: 'standard-webhooks',
  customSources: true,
  summary: '`webhook-id` / `webhook-timestamp` / `webhook-signature` (`v1,<base64>`), `whsec_` secrets',
  headers: [STANDARD_WEBHOOKS_ID_HEADER, STANDARD_WEBHOOKS_TIMESTAMP_HEADER, STANDARD_WEBHOOKS_SIGNATURE_HEADER],
  deliveryIdHeader: STANDARD_WEBHOOKS_ID_HEADER,
  verify(input) {
    const id = requireHeader(input.headers, STANDARD_WEBHOOKS_ID_HEADER);
    if (!id.ok) return id;
    const timestamp = requireHeader(input.headers, STANDARD_WEBHOOKS_TIMESTAMP_HEADER);
    if (!timestamp.ok) return timestamp;
    const signature = requireHeader(input.headers, STANDARD_WEBHOOKS_SIGNATURE_HEADER);
    if (!signature.ok) return signature;

    let versioned = 0;
    const candidates: Uint8Array[] = [];
    for (const entry of signature.value.split(' ')) {
      if (!entry.startsWith(V1)) continue;
      versioned += 1;
      const digest = decodeBase64Digest(entry.slice(V1.length));
      if (digest !== undefined) candidates.push(digest);
    }
    if (versioned === 0) return fail('malformed_signature', `${STANDARD_WEBHOOKS_SIGNATURE_HEADER} header has no v1 signature`);
    if (candidates.length === 0) return fail('malformed_signature', `${STANDARD_WEBHOOKS_SIGNATURE_HEADER} header has no well-formed v1 signature`);

    const checked = checkTimestamp(timestamp.value, input.nowSeconds, input.toleranceSeconds, STANDARD_WEBHOOKS_TIMESTAMP_HEADER);
    if (typeof checked !== 'string') return checked;

    const prefix = `${id.value}.${checked}.`;
    const matched = anySecretMatches(
      input.crypto,
      input.secrets,
      (secret) => input.crypto.hmacSha256(standardWebhooksKey(secret), input.body, prefix),
      candidates,
    );
    return matched ? VERIFIED : fail('signature_mismatch', `${STANDARD_WEBHOOKS_SIGNATURE_HEADER} does not match the request`);
  },
  sign: ({ secret, id, timestamp }) => {
    const t = timestampText(timestamp);
    return {
      key: standardWebhooksKey(secret),
      prefix: `${id}.${t}.`,
      headers: (digest) => ({
        [STANDARD_WEBHOOKS_ID_HEADER]: id,
        [STANDARD_WEBHOOKS_TIMESTAMP_HEADER]: t,
        [STANDARD_WEBHOOKS_SIGNATURE_HEADER]: V1 + toBase64(digest),
      }),
    };
  },
});
