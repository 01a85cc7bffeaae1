/**
 * The client signs with Web Crypto; the server verifies with node:crypto. Byte for byte, the
 * client's headers must be the ones core's own signers produce for the same input.
 */
import { signatureHeaders as coreSignatureHeaders, SIGNATURE_SCHEME_NAMES, verifySignature } from '@agent-platform/core';
import { describe, expect, it } from 'vitest';
import { signatureHeaders } from './signing/signing.js';

const encoder = new TextEncoder();
const now = new Date('2026-11-23T10:00:00Z');
const timestamp = Math.floor(now.getTime() / 1000);
const bodies = ['{"type":"ping"}', '{"text":"héllo ✓ 🎉","n":[1,2,3]}', ''];
const secrets = {
  'hmac-sha256': 'plain-secret-value',
  github: 'github-secret',
  'standard-webhooks': 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  stripe: 'whsec_stripe_style_secret',
  slack: '8f742231b10e8888abcd99yyyzzz85a5',
  linear: 'lin_wh_signing_secret_0123',
  'gitlab-token': 'glwh-secret-token-0123',
} as const satisfies Record<(typeof SIGNATURE_SCHEME_NAMES)[number], string>;

describe('signatures', () => {
  for (const scheme of SIGNATURE_SCHEME_NAMES) {
    it(`${scheme}: the same headers as core's signer`, async () => {
      for (const text of bodies) {
        const body = encoder.encode(text);
        const secret = secrets[scheme];
        const ours = await signatureHeaders({ scheme, secret, body, timestamp, id: 'msg_fixed', signatureHeader: 'X-Hook-Sig' });
        const theirs = coreSignatureHeaders({ scheme, secret, body: Buffer.from(body), now, id: 'msg_fixed', signatureHeader: 'X-Hook-Sig' });
        expect(ours).toEqual(theirs);
      }
    });
  }

  it('a standard-webhooks secret in base64url (as the service generates them) signs the same as in base64', async () => {
    const raw = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 250) % 256);
    const base64 = Buffer.from(raw).toString('base64');
    const base64url = Buffer.from(raw).toString('base64url');
    expect(base64).not.toBe(base64url);
    const body = encoder.encode('{"a":1}');
    const a = await signatureHeaders({ scheme: 'standard-webhooks', secret: `whsec_${base64}`, body, timestamp, id: 'm' });
    const b = await signatureHeaders({ scheme: 'standard-webhooks', secret: `whsec_${base64url}`, body, timestamp, id: 'm' });
    expect(a).toEqual(b);
    const verified = verifySignature({ scheme: 'standard-webhooks', headers: b, body, secrets: [`whsec_${base64url}`], now });
    expect(verified.ok).toBe(true);
  });

  it('a standard-webhooks secret with characters outside base64 is read as the service reads it', async () => {
    const secret = 'whsec_not base64!';
    const body = encoder.encode('{}');
    const ours = await signatureHeaders({ scheme: 'standard-webhooks', secret, body, timestamp, id: 'm' });
    expect(ours).toEqual(coreSignatureHeaders({ scheme: 'standard-webhooks', secret, body: Buffer.from(body), now, id: 'm' }));
  });

  it('linear: what the client signs, the service verifies (with the payload carrying webhookTimestamp)', async () => {
    const body = encoder.encode(JSON.stringify({ type: 'Issue', action: 'create', webhookTimestamp: now.getTime() }));
    const headers = await signatureHeaders({ scheme: 'linear', secret: secrets.linear, body, timestamp, id: 'm' });
    expect(Object.keys(headers)).toEqual(['linear-signature']);
    expect(verifySignature({ scheme: 'linear', headers, body, secrets: [secrets.linear], now })).toEqual({ ok: true });
  });
});
