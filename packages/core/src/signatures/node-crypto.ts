/**
 * The schemes' cryptography on the server: node:crypto, synchronous.
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SchemeCrypto } from './scheme-kit/scheme.js';

export const nodeSchemeCrypto: SchemeCrypto = {
  hmacSha256(key, body, prefix) {
    // The body is fed to the HMAC as is: no copy, no concatenation with the prefix.
    const hmac = createHmac('sha256', key);
    if (prefix !== undefined && prefix !== '') hmac.update(prefix, 'utf8');
    hmac.update(body);
    return hmac.digest();
  },
  equal: (a, b) => timingSafeEqual(a, b),
};
