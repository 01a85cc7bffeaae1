/**
 * `standard-webhooks` (https://www.standardwebhooks.com): headers `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature`, a space-separated list of
 * `<version>,<signature>` entries of which only `v1` (base64 HMAC-SHA256) is understood; other
 * versions are ignored. The signed content is `${id}.${timestamp}.${body}`; the key is the secret
 * base64-decoded after stripping a `whsec_` prefix. Node's decoder also accepts base64url, which
 * is what generated secrets use.
 * @module
 */
import { anySecretMatches } from './constant-time.js';
import { decodeBase64Digest, hmacSha256 } from './digest.js';
import { requireHeader } from './headers.js';
import { fail, VERIFIED } from './result.js';
import type { SchemeInput } from './scheme.js';
import { checkTimestamp, timestampText } from './timestamp.js';
import type { SignableBody, VerifyResult } from './types.js';

export const STANDARD_WEBHOOKS_ID_HEADER = 'webhook-id';
export const STANDARD_WEBHOOKS_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_WEBHOOKS_SIGNATURE_HEADER = 'webhook-signature';

const SECRET_PREFIX = 'whsec_';
const V1 = 'v1,';

/** The HMAC key of a Standard Webhooks secret: base64(url) decoded, after any `whsec_` prefix. */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
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
  return V1 + hmacSha256(standardWebhooksKey(secret), body, `${id}.${timestampText(timestamp)}.`).toString('base64');
}

export function verifyStandardWebhooks(input: SchemeInput): VerifyResult {
  const id = requireHeader(input.headers, STANDARD_WEBHOOKS_ID_HEADER);
  if (!id.ok) return id;
  const timestamp = requireHeader(input.headers, STANDARD_WEBHOOKS_TIMESTAMP_HEADER);
  if (!timestamp.ok) return timestamp;
  const signature = requireHeader(input.headers, STANDARD_WEBHOOKS_SIGNATURE_HEADER);
  if (!signature.ok) return signature;

  let versioned = 0;
  const candidates: Buffer[] = [];
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
  const matched = anySecretMatches(input.secrets, (secret) => hmacSha256(standardWebhooksKey(secret), input.body, prefix), candidates);
  return matched ? VERIFIED : fail('signature_mismatch', `${STANDARD_WEBHOOKS_SIGNATURE_HEADER} does not match the request`);
}
