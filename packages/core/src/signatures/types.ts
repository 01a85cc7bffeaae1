/**
 * The public types of webhook signature verification.
 * @module
 */

import type { SignatureSchemeName } from './registry.js';
import type { SignatureRequestHeaders } from './scheme-kit/types.js';

export type { SignatureSchemeName };
export type { SignableBody, SignatureRequestHeaders, VerifyFailure, VerifyFailureReason, VerifyResult } from './scheme-kit/types.js';

/** What {@link verifySignature} checks. */
export interface VerifyInput {
  scheme: SignatureSchemeName;
  /** Header names lower-cased. Values may be string | string[] | undefined (Node style); of an array, the first value counts. */
  headers: SignatureRequestHeaders;
  /** The exact raw body bytes as received. */
  body: Uint8Array;
  /** Secrets that may have signed it: the current one, plus the previous one during a rotation grace period. At least one. */
  secrets: readonly string[];
  /** For 'hmac-sha256' only: the header carrying the signature (e.g. 'X-Signature-256'); case-insensitive. Default `X-Signature-256`. */
  signatureHeader?: string;
  /** Current time, for timestamp tolerance (inject for tests). */
  now: Date;
  /** Tolerance in seconds for timestamped schemes; default 300. Applies to past and future timestamps; a difference of exactly this many seconds is accepted. */
  toleranceSeconds?: number;
}
