/**
 * `hmac-sha256`, the default for custom webhooks: the HMAC-SHA256 of the raw body, hex-encoded,
 * in a header the webhook names (default `X-Signature-256`).
 *
 * Accepted: 64 hex digits, lower- or upper-case, optionally prefixed with `sha256=` (the prefix
 * matched case-insensitively), e.g. `sha256=96fe…` or `96FE…`. Signing produces the canonical
 * form: plain lowercase hex, no prefix.
 * @module
 */
import { decodeHexDigest, toHex } from '../scheme-kit/encoding.js';
import { requireHeader } from '../scheme-kit/required-header.js';
import { anySecretMatches } from '../scheme-kit/match.js';
import { fail, VERIFIED } from '../scheme-kit/result.js';
import { defineScheme } from '../scheme-kit/scheme.js';

/** The header `hmac-sha256` reads when the webhook names none (matches the webhook schema's default). */
export const DEFAULT_HMAC_SIGNATURE_HEADER = 'X-Signature-256';

const PREFIX = 'sha256=';

export const hmacSha256Scheme = defineScheme({
  name: 'hmac-sha256',
  customSources: true,
  summary: "hex HMAC-SHA256 of the body in the webhook's `signature_header` (default `X-Signature-256`), with or without `sha256=`",
  headers: [DEFAULT_HMAC_SIGNATURE_HEADER],
  deliveryIdHeader: null,
  verify(input) {
    const display = input.signatureHeader ?? DEFAULT_HMAC_SIGNATURE_HEADER;
    const header = requireHeader(input.headers, display);
    if (!header.ok) return header;
    const value = header.value;
    const hex = value.slice(0, PREFIX.length).toLowerCase() === PREFIX ? value.slice(PREFIX.length) : value;
    const candidate = decodeHexDigest(hex);
    if (candidate === undefined) return fail('malformed_signature', `${display} header is not a hex HMAC-SHA256 digest`);
    const matched = anySecretMatches(input.crypto, input.secrets, (secret) => input.crypto.hmacSha256(secret, input.body), [candidate]);
    return matched ? VERIFIED : fail('signature_mismatch', `${display} does not match the request body`);
  },
  sign: ({ secret, signatureHeader }) => ({
    key: secret,
    prefix: '',
    headers: (digest) => ({ [(signatureHeader ?? DEFAULT_HMAC_SIGNATURE_HEADER).toLowerCase()]: toHex(digest) }),
  }),
});
