import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, generateSecretKey } from '@agent-platform/core';

describe('createAesGcmSecretBox', () => {
  const k1 = generateSecretKey();
  const k2 = generateSecretKey();

  it('round-trips and never leaves the plaintext in the sealed value', () => {
    const box = createAesGcmSecretBox({ keys: { k1 } });
    const sealed = box.seal('ghp_supersecret');
    expect(sealed).not.toContain('ghp_supersecret');
    expect(sealed.startsWith('v1.k1.')).toBe(true);
    expect(box.open(sealed)).toBe('ghp_supersecret');
  });

  it('uses a fresh IV each time', () => {
    const box = createAesGcmSecretBox({ keys: { k1 } });
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('opens values sealed with an older key after rotation', () => {
    const old = createAesGcmSecretBox({ keys: { k1 } });
    const sealed = old.seal('token');
    const rotated = createAesGcmSecretBox({ keys: { k1, k2 }, activeKeyId: 'k2' });
    expect(rotated.open(sealed)).toBe('token');
    expect(rotated.seal('x').startsWith('v1.k2.')).toBe(true);
  });

  it('refuses tampered values, unknown keys and bad key material', () => {
    const box = createAesGcmSecretBox({ keys: { k1 } });
    const parts = box.seal('token').split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => createAesGcmSecretBox({ keys: { k2 } }).open(box.seal('x'))).toThrow(/unknown key/);
    expect(() => box.open('plaintext')).toThrow(/not a sealed secret/);
    expect(() => createAesGcmSecretBox({ keys: { k1: Buffer.alloc(16).toString('base64') } })).toThrow(/32 bytes/);
    expect(() => createAesGcmSecretBox({ keys: { k1, k2 } })).toThrow(/activeKeyId/);
  });
});
