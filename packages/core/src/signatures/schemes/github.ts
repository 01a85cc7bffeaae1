/**
 * `github`: GitHub's `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw body with the
 * webhook secret. The `sha256=` prefix is required (as GitHub sends it, lower-case); the legacy
 * SHA-1 `X-Hub-Signature` header is not accepted. Serves the built-in GitHub endpoint, not
 * custom sources.
 * @module
 */
import { decodeHexDigest, toHex } from '../scheme-kit/encoding.js';
import { requireHeader } from '../scheme-kit/required-header.js';
import { anySecretMatches } from '../scheme-kit/match.js';
import { fail, VERIFIED } from '../scheme-kit/result.js';
import { defineScheme } from '../scheme-kit/scheme.js';

export const GITHUB_SIGNATURE_HEADER = 'X-Hub-Signature-256';
export const GITHUB_DELIVERY_HEADER = 'X-GitHub-Delivery';
const PREFIX = 'sha256=';

export const githubScheme = defineScheme({
  name: 'github',
  customSources: false,
  summary: '`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>` (the built-in GitHub endpoint)',
  headers: [GITHUB_SIGNATURE_HEADER, GITHUB_DELIVERY_HEADER],
  deliveryIdHeader: GITHUB_DELIVERY_HEADER,
  verify(input) {
    const header = requireHeader(input.headers, GITHUB_SIGNATURE_HEADER);
    if (!header.ok) return header;
    if (!header.value.startsWith(PREFIX)) return fail('malformed_signature', `${GITHUB_SIGNATURE_HEADER} header must start with "sha256="`);
    const candidate = decodeHexDigest(header.value.slice(PREFIX.length));
    if (candidate === undefined) return fail('malformed_signature', `${GITHUB_SIGNATURE_HEADER} header is not "sha256=" and a hex digest`);
    const matched = anySecretMatches(input.crypto, input.secrets, (secret) => input.crypto.hmacSha256(secret, input.body), [candidate]);
    return matched ? VERIFIED : fail('signature_mismatch', `${GITHUB_SIGNATURE_HEADER} does not match the request body`);
  },
  sign: ({ secret }) => ({
    key: secret,
    prefix: '',
    headers: (digest) => ({ [GITHUB_SIGNATURE_HEADER.toLowerCase()]: PREFIX + toHex(digest) }),
  }),
});
