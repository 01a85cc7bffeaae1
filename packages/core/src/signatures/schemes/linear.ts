/**
 * `linear`: Linear's `Linear-Signature: <hex>`, the HMAC-SHA256 of the raw body with the webhook's
 * signing secret, and the payload's `webhookTimestamp` (milliseconds since the epoch) within a
 * minute of now, Linear's own replay window (the webhook's tolerance applies when it is
 * shorter). Linear names each delivery in `Linear-Delivery`.
 * @module
 */
import { decodeHexDigest, toHex } from '../scheme-kit/encoding.js';
import { requireHeader } from '../scheme-kit/required-header.js';
import { anySecretMatches } from '../scheme-kit/match.js';
import { fail, VERIFIED } from '../scheme-kit/result.js';
import { defineScheme } from '../scheme-kit/scheme.js';

export const LINEAR_SIGNATURE_HEADER = 'Linear-Signature';
export const LINEAR_DELIVERY_HEADER = 'Linear-Delivery';
/** Linear's replay window for `webhookTimestamp`, in seconds. */
export const LINEAR_TOLERANCE_SECONDS = 60;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The payload's `webhookTimestamp` in milliseconds, or `undefined` when the body has none. */
function webhookTimestamp(body: Uint8Array): number | undefined {
  try {
    const payload: unknown = JSON.parse(utf8.decode(body));
    const value = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>).webhookTimestamp : undefined;
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export const linearScheme = defineScheme({
  name: 'linear',
  customSources: true,
  summary: "`Linear-Signature: <hex HMAC-SHA256 of the body>`, with the payload's `webhookTimestamp` within a minute",
  headers: [LINEAR_SIGNATURE_HEADER, LINEAR_DELIVERY_HEADER],
  deliveryIdHeader: LINEAR_DELIVERY_HEADER,
  verify(input) {
    const header = requireHeader(input.headers, LINEAR_SIGNATURE_HEADER);
    if (!header.ok) return header;
    const candidate = decodeHexDigest(header.value);
    if (candidate === undefined) return fail('malformed_signature', `${LINEAR_SIGNATURE_HEADER} header is not a hex HMAC-SHA256 digest`);
    const matched = anySecretMatches(input.crypto, input.secrets, (secret) => input.crypto.hmacSha256(secret, input.body), [candidate]);
    if (!matched) return fail('signature_mismatch', `${LINEAR_SIGNATURE_HEADER} does not match the request body`);
    // Checked after the signature, so only a genuine body is parsed here.
    const sentAt = webhookTimestamp(input.body);
    if (sentAt === undefined) return fail('malformed_signature', 'Linear payload has no numeric webhookTimestamp');
    const tolerance = Math.min(input.toleranceSeconds, LINEAR_TOLERANCE_SECONDS);
    const skew = sentAt / 1000 - input.nowSeconds;
    if (Math.abs(skew) > tolerance) {
      return fail('timestamp_out_of_tolerance', `webhookTimestamp is too far ${skew > 0 ? 'in the future' : 'in the past'} (tolerance ${tolerance} s)`);
    }
    return VERIFIED;
  },
  sign: ({ secret }) => ({ key: secret, prefix: '', headers: (digest) => ({ [LINEAR_SIGNATURE_HEADER.toLowerCase()]: toHex(digest) }) }),
});
