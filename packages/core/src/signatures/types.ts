/**
 * The public types of webhook signature verification.
 * @module
 */

import type { SignatureSchemeName } from './registry.js';

export type { SignatureSchemeName };

/** Request headers as Node gives them: names lower-cased, repeated headers as arrays. */
export type SignatureRequestHeaders = Record<string, string | string[] | undefined>;

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

/** Why a request failed verification. */
export type VerifyFailureReason = 'missing_signature' | 'malformed_signature' | 'timestamp_out_of_tolerance' | 'signature_mismatch';

/** A failed verification: a reason to branch on and a message safe to show the sender (it never contains a secret or an expected signature). */
export interface VerifyFailure {
  ok: false;
  reason: VerifyFailureReason;
  message: string;
}

/** The outcome of {@link verifySignature}. */
export type VerifyResult = { ok: true } | VerifyFailure;

/** A body to sign: raw bytes, or a string signed as its UTF-8 bytes. */
export type SignableBody = Uint8Array | string;
