/**
 * `gitlab-token`: GitLab's webhooks do not sign their body; they send the webhook's secret token
 * itself in `X-Gitlab-Token` (gitlab.com and self-managed alike). A request is genuine when that
 * header equals the secret. The comparison is in constant time whatever the lengths: both values
 * go through one HMAC-SHA256 under a fixed key, and the 32-byte digests are compared (so neither
 * the secret's length nor how much of it a guess got right shows in the time taken).
 *
 * What it cannot do, as GitLab's own design cannot: bind the token to the body (anyone who sees
 * one request can replay its token with another body), so the webhook URL must be HTTPS.
 * @module
 */
import { requireHeader } from '../scheme-kit/required-header.js';
import { anySecretMatches } from '../scheme-kit/match.js';
import { fail, VERIFIED } from '../scheme-kit/result.js';
import { defineScheme } from '../scheme-kit/scheme.js';

export const GITLAB_TOKEN_HEADER = 'X-Gitlab-Token';

/** Not a secret: a fixed key, so that equal values give equal digests and unequal ones unrelated digests. */
const COMPARISON_KEY = 'agent-platform gitlab-token comparison';
const encoder = new TextEncoder();

export const gitlabTokenScheme = defineScheme({
  name: 'gitlab-token',
  customSources: true,
  summary: '`X-Gitlab-Token: <the secret token>`, compared in constant time (GitLab does not sign the body)',
  headers: [GITLAB_TOKEN_HEADER],
  deliveryIdHeader: null,
  verify(input) {
    const header = requireHeader(input.headers, GITLAB_TOKEN_HEADER);
    if (!header.ok) return header;
    const digestOf = (value: string) => input.crypto.hmacSha256(COMPARISON_KEY, encoder.encode(value));
    const matched = anySecretMatches(input.crypto, input.secrets, digestOf, [digestOf(header.value)]);
    return matched ? VERIFIED : fail('signature_mismatch', `${GITLAB_TOKEN_HEADER} does not match the webhook's secret token`);
  },
  // What GitLab sends is the token itself: the plan's digest is not used.
  sign: ({ secret }) => ({ key: secret, prefix: '', headers: () => ({ [GITLAB_TOKEN_HEADER.toLowerCase()]: secret }) }),
});
