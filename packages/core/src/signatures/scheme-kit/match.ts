/**
 * Constant-time matching of received digests against the digests of every secret.
 * @module
 */
import type { SchemeCrypto } from './scheme.js';

/**
 * True when any candidate equals the digest under any secret.
 *
 * Each secret's digest is computed once and compared, in constant time, with every candidate
 * (no early exit among candidates). A secret that matches nothing never stops the search: the
 * next secret is tried. It stops at the first secret that matches, which reveals only what the
 * caller's answer reveals anyway (that the request is genuine). Candidates of the wrong length
 * never match; their length is public (every digest here is 32 bytes), so checking it first leaks nothing.
 */
export function anySecretMatches(
  crypto: SchemeCrypto,
  secrets: readonly string[],
  digestFor: (secret: string) => Uint8Array,
  candidates: readonly Uint8Array[],
): boolean {
  for (const secret of secrets) {
    const expected = digestFor(secret);
    let matched = false;
    for (const candidate of candidates) {
      const equal = candidate.length === expected.length && crypto.equal(candidate, expected);
      matched = equal || matched;
    }
    if (matched) return true;
  }
  return false;
}
