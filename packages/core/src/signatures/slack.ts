/**
 * `slack`: `X-Slack-Signature: v0=<hex>`, the HMAC-SHA256 (key: the signing secret as is) of
 * `v0:${X-Slack-Request-Timestamp}:${body}`.
 * @module
 */
import { anySecretMatches } from './constant-time.js';
import { decodeHexDigest, hmacSha256 } from './digest.js';
import { requireHeader } from './headers.js';
import { fail, VERIFIED } from './result.js';
import type { SchemeInput } from './scheme.js';
import { checkTimestamp, timestampText } from './timestamp.js';
import type { SignableBody, VerifyResult } from './types.js';

export const SLACK_SIGNATURE_HEADER = 'X-Slack-Signature';
export const SLACK_TIMESTAMP_HEADER = 'X-Slack-Request-Timestamp';
const PREFIX = 'v0=';

export interface SignSlackInput {
  secret: string;
  /** Unix seconds, the `X-Slack-Request-Timestamp`. */
  timestamp: number;
  body: SignableBody;
}

/** An `X-Slack-Signature` value: `v0=<lowercase hex>`. */
export function signSlack({ secret, timestamp, body }: SignSlackInput): string {
  return PREFIX + hmacSha256(secret, body, `v0:${timestampText(timestamp)}:`).toString('hex');
}

export function verifySlack(input: SchemeInput): VerifyResult {
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
  const matched = anySecretMatches(input.secrets, (secret) => hmacSha256(secret, input.body, prefix), [candidate]);
  return matched ? VERIFIED : fail('signature_mismatch', `${SLACK_SIGNATURE_HEADER} does not match the request`);
}
