/**
 * What a signature scheme is: one file under `schemes/` that knows a sender's format — the
 * headers it reads, its delivery-id header, how it verifies and what a sender signs — and no
 * cryptography of its own. HMAC and constant-time comparison are handed in ({@link SchemeCrypto}),
 * so the same file serves the server (node:crypto, synchronous) and the client SDK's signer in a
 * browser (Web Crypto, asynchronous: it follows the {@link SigningPlan}). Every list of scheme
 * names derives from the registry (`registry.ts`) these files are listed in.
 * @module
 */
import type { SignatureRequestHeaders, VerifyResult } from './types.js';

/** The cryptography a scheme is given. */
export interface SchemeCrypto {
  /** HMAC-SHA256 of `prefix` (UTF-8) followed by `body`, keyed by `key` (a string: its UTF-8 bytes). */
  hmacSha256(key: string | Uint8Array, body: Uint8Array, prefix?: string): Uint8Array;
  /** Constant-time equality of two byte arrays of the same length. */
  equal(a: Uint8Array, b: Uint8Array): boolean;
}

/** What a scheme's verifier receives once `verifySignature` has checked the caller's input. */
export interface SchemeInput {
  headers: SignatureRequestHeaders;
  body: Uint8Array;
  /** Non-empty. */
  secrets: readonly string[];
  /** For schemes whose signature header the webhook names (`hmac-sha256`). */
  signatureHeader: string | undefined;
  nowSeconds: number;
  toleranceSeconds: number;
  crypto: SchemeCrypto;
}

/** What a sender signs with. */
export interface SigningInput {
  secret: string;
  /** The exact bytes that will be sent. */
  body: Uint8Array;
  /** Unix seconds, for timestamped schemes. */
  timestamp: number;
  /** A message id, for schemes that sign one (`standard-webhooks`). */
  id: string;
  /** For schemes whose signature header the webhook names (`hmac-sha256`). */
  signatureHeader?: string | undefined;
}

/**
 * How to sign: the HMAC-SHA256 of `prefix` + body under `key`, then `headers(digest)` are the
 * request headers to send (names lower-cased). Every scheme here is one HMAC-SHA256, which is
 * what lets a synchronous and an asynchronous HMAC follow the same plan.
 */
export interface SigningPlan {
  key: string | Uint8Array;
  prefix: string;
  headers(digest: Uint8Array): Record<string, string>;
}

export interface SignatureSchemeDefinition<Name extends string = string, Custom extends boolean = boolean> {
  readonly name: Name;
  /** Whether a custom webhook source may use it (`github` serves the built-in GitHub endpoint). */
  readonly customSources: Custom;
  /** One line for documentation: what the sender sends. */
  readonly summary: string;
  /** The request headers the scheme reads, as the sender spells them. */
  readonly headers: readonly string[];
  /** The sender's delivery-id header (what a redelivery repeats), when it sends one. */
  readonly deliveryIdHeader: string | null;
  /** Never throws on anything the sender controls: a failure is a result with a message safe to return. */
  verify(input: SchemeInput): VerifyResult;
  sign(input: SigningInput): SigningPlan;
}

/** A scheme, its name and `customSources` kept as literal types (so name lists derive from them). */
export function defineScheme<const Name extends string, const Custom extends boolean>(
  scheme: SignatureSchemeDefinition<Name, Custom>,
): SignatureSchemeDefinition<Name, Custom> {
  return Object.freeze(scheme);
}
