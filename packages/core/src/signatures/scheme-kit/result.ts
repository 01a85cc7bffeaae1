/**
 * Building {@link VerifyResult} values.
 * @module
 */
import type { VerifyFailure, VerifyFailureReason, VerifyResult } from './types.js';

/** The one success value (frozen, shared: verification runs on every delivery). */
export const VERIFIED: VerifyResult = Object.freeze({ ok: true as const });

export function fail(reason: VerifyFailureReason, message: string): VerifyFailure {
  return { ok: false, reason, message };
}

/** Default tolerance for timestamped schemes, in seconds (5 minutes). */
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Header values longer than this are refused as malformed before any parsing: a real signature
 * header is well under 1 KiB, and this bounds the work an attacker can make us do.
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 8192;
