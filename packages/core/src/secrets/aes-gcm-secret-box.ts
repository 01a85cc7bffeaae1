/**
 * AES-256-GCM {@link SecretBox} on node:crypto. Sealed values look like
 * `v1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts), so a value names the key that opens
 * it: rotate by making a new key active and keeping the old ones in `keys`.
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretBox } from '../ports/secret-box.js';

const FORMAT = 'v1';
const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export interface AesGcmSecretBoxOptions {
  /** Keys by id: 32 bytes each, as a Buffer or base64. */
  keys: Record<string, Uint8Array | string>;
  /** The key new values are sealed with. Defaults to the only key when there is one. */
  activeKeyId?: string;
}

function decodeKey(id: string, key: Uint8Array | string): Buffer {
  if (!KEY_ID_PATTERN.test(id)) throw new Error(`secret key id "${id}" must match ${KEY_ID_PATTERN}`);
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : Buffer.from(key);
  if (bytes.length !== 32) throw new Error(`secret key "${id}" must be 32 bytes (base64 of 32 bytes), got ${bytes.length}`);
  return bytes;
}

/**
 * @example
 * ```ts
 * const box = createAesGcmSecretBox({ keys: { k1: process.env.SECRET_KEY! } });
 * const sealed = box.seal('ghp_...');
 * box.open(sealed); // 'ghp_...'
 * ```
 */
export function createAesGcmSecretBox(options: AesGcmSecretBoxOptions): SecretBox {
  const keys = new Map(Object.entries(options.keys).map(([id, key]) => [id, decodeKey(id, key)]));
  const ids = [...keys.keys()];
  const activeKeyId = options.activeKeyId ?? (ids.length === 1 ? ids[0] : undefined);
  if (activeKeyId === undefined || !keys.has(activeKeyId)) {
    throw new Error('createAesGcmSecretBox: activeKeyId must name one of the keys');
  }
  const activeKey = keys.get(activeKeyId) as Buffer;

  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', activeKey, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [FORMAT, activeKeyId, iv.toString('base64url'), ciphertext.toString('base64url'), tag.toString('base64url')].join('.');
    },
    open(sealed) {
      const [format, keyId, iv, ciphertext, tag, ...rest] = sealed.split('.');
      if (format !== FORMAT || !keyId || iv === undefined || ciphertext === undefined || !tag || rest.length > 0) {
        throw new Error('not a sealed secret');
      }
      const key = keys.get(keyId);
      if (!key) throw new Error(`secret sealed with unknown key "${keyId}"`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** A fresh random 32-byte key, base64: for development, or to generate `AGENT_PLATFORM_SECRET_KEY`. */
export const generateSecretKey = (): string => randomBytes(32).toString('base64');
