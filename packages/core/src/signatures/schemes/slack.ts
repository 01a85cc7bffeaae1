/**
 * `slack`: `X-Slack-Signature: v0=<hex>`, the HMAC-SHA256 (key: the signing secret as is) of
 * `v0:${X-Slack-Request-Timestamp}:${body}`.
 * @module
 */
import { decodeHexDigest, toHex } from '../scheme-kit/encoding.js';
import { requireHeader } from '../scheme-kit/required-header.js';
import { anySecretMatches } from '../scheme-kit/match.js';
import { fail, VERIFIED } from '../scheme-kit/result.js';
import { defineScheme } from '../scheme-kit/scheme.js';
import { checkTimestamp, timestampText } from '../scheme-kit/timestamp.js';

export const SLACK_SIGNATURE_HEADER = 'X-Slack-Signature';
export const SLACK_TIMESTAMP_HEADER = 'X-Slack-Request-Timestamp';
const PREFIX = 'v0=';

export const slackScheme = defineScheme({
  name: 'slack',
  customSources: true,
  summary: '`X-Slack-Signature: v0=…` with `X-Slack-Request-Timestamp`',
  headers: [SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER],
  deliveryIdHeader: null,
  verify(input) {
    const signature = requireHeader(input.headers, SLACK_SIGNATURE_HEADER);
    if (!signature.ok) return signature;
    const timestamp = requireHeader(input.headers, SLACK_TIMESTAMP_HEADER);
    if (!timestamp.ok) return timestamp;

    if (!signature.value.startsWith(PREFIX)) return fail('malformed_signature', `${SLACK_SIGNATURE_HEADER} header must start with "v0="`);
    const candidate = decodeHexDigest(signature.value.slice(PREFIX.length));
    if (candidate === undefined) return fail('malformed_signature', `${SLACK_SIGNATURE_HEADER} header is not "v0=" and a hex digest`);

    const checked = checkTimestamp(timestamp.value, input.nowSeconds, input.toleranceSeconds, SLACK_TIMESTAMP_HEADER);
    if (typeof checked !== 'string') return checked;

    const prefix = `v0:${checked}:`;
    const matched = anySecretMatches(input.crypto, input.secrets, (secret) => input.crypto.hmacSha256(secret, input.body, prefix), [candidate]);
    return matched ? VERIFIED : fail('signature_mismatch', `${SLACK_SIGNATURE_HEADER} does not match the request`);
  },
  sign: ({ secret, timestamp }) => {
    const t = timestampText(timestamp);
    return {
      key: secret,
      prefix: `v0:${t}:`,
      headers: (digest) => ({ [SLACK_SIGNATURE_HEADER.toLowerCase()]: PREFIX + toHex(digest), [SLACK_TIMESTAMP_HEADER.toLowerCase()]: t }),
    };
  },
});
