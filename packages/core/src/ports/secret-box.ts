/**
 * Encrypts secrets at rest. Sealed values are opaque strings that carry the key id they were
 * sealed with, so keys can be rotated: new values use the active key, old ones still open.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}
