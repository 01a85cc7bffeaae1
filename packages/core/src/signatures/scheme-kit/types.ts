/**
 * The types a signature scheme is written with: the request headers it reads and the outcome it
 * gives. They name no scheme, so the scheme files and the registry that lists them never import
 * each other through a type.
 * @module
 */

/** Request headers as Node gives them: names lower-cased, repeated headers as arrays. */
export type SignatureRequestHeaders = Record<string, string | string[] | undefined>;

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
