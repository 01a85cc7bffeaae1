/**
 * What every scheme's verifier receives once {@link verifySignature} has checked the caller's input.
 * @module
 */
import type { SignatureRequestHeaders, VerifyResult } from './types.js';

export interface SchemeInput {
  headers: SignatureRequestHeaders;
  body: Uint8Array;
  /** Non-empty. */
  secrets: readonly string[];
  signatureHeader: string | undefined;
  nowSeconds: number;
  toleranceSeconds: number;
}

export type SchemeVerifier = (input: SchemeInput) => VerifyResult;
