import { describe, expect, it } from 'vitest';
import { MAX_SIGNATURE_HEADER_LENGTH, SIGNATURE_SCHEME_NAMES, signatureHeaders, verifySignature, type SignatureSchemeName, type VerifyInput } from './index.js';

// Behaviour every scheme shares: round-trips, tampering, wrong secrets, rotation, missing and
// malformed headers, and never throwing on what a sender controls. `gitlab-token` signs no body
// (GitLab sends the secret token itself), so the tampering cases are the body-signing schemes'.

const NOW = new Date('2026-03-01T12:00:00.000Z');
// `webhookTimestamp`: Linear signs its payload's own send time (milliseconds), checked within a minute.
const BODY = new TextEncoder().encode(JSON.stringify({ type: 'order.created', id: 42, note: 'héllo ✓', webhookTimestamp: NOW.getTime() }));
const CURRENT = 'whsec_Y3VycmVudC1zZWNyZXQtZm9yLXRlc3RzLTAxMjM0NTY3';
const PREVIOUS = 'whsec_cHJldmlvdXMtc2VjcmV0LWZvci10ZXN0cy0wMTIzNDU2Nw';

const SCHEMES: readonly SignatureSchemeName[] = SIGNATURE_SCHEME_NAMES;
/** The header carrying the signature itself, per scheme (lower-cased). */
const SIGNATURE_HEADER: Record<SignatureSchemeName, string> = {
  'hmac-sha256': 'x-custom-sig',
  github: 'x-hub-signature-256',
  'standard-webhooks': 'webhook-signature',
  stripe: 'stripe-signature',
  slack: 'x-slack-signature',
  linear: 'linear-signature',
  'gitlab-token': 'x-gitlab-token',
};
/** Whether the scheme's signature covers the body (every scheme but GitLab's token). */
const signsBody = (scheme: SignatureSchemeName): boolean => scheme !== 'gitlab-token';

function signed(scheme: SignatureSchemeName, secret = CURRENT, body: Uint8Array = BODY): Record<string, string> {
  return signatureHeaders({ scheme, secret, body, now: NOW, signatureHeader: 'X-Custom-Sig', id: 'msg_test_1' });
}

function verify(scheme: SignatureSchemeName, overrides: Partial<VerifyInput> = {}): ReturnType<typeof verifySignature> {
  return verifySignature({
    scheme,
    headers: signed(scheme),
    body: BODY,
    secrets: [CURRENT],
    signatureHeader: 'X-Custom-Sig',
    now: NOW,
    ...overrides,
  });
}

describe.each(SCHEMES)('%s', (scheme) => {
  it('verifies what signatureHeaders produced', () => {
    expect(verify(scheme)).toEqual({ ok: true });
  });

  it('verifies a Buffer body and a body that is a view into a larger buffer', () => {
    const backing = new Uint8Array(BODY.length + 16).fill(7);
    backing.set(BODY, 8);
    const view = backing.subarray(8, 8 + BODY.length);
    expect(verify(scheme, { body: Buffer.from(BODY) })).toEqual({ ok: true });
    expect(verify(scheme, { body: view })).toEqual({ ok: true });
  });

  it.runIf(signsBody(scheme))('refuses a body with one byte flipped, one byte more or one byte less', () => {
    const flipped = Uint8Array.from(BODY);
    flipped[5] = (flipped[5] ?? 0) ^ 0x01;
    for (const body of [flipped, BODY.subarray(0, BODY.length - 1), Uint8Array.from([...BODY, 0x20])]) {
      expect(verify(scheme, { body })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    }
  });

  it('refuses a signature made with another secret', () => {
    expect(verify(scheme, { headers: signed(scheme, 'whsec_b3RoZXItc2VjcmV0LW5vdC1vdXJz') })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts either secret during a rotation, and only the new one after it', () => {
    const byOld = signed(scheme, PREVIOUS);
    const byNew = signed(scheme, CURRENT);
    expect(verify(scheme, { headers: byOld, secrets: [CURRENT, PREVIOUS] })).toEqual({ ok: true });
    expect(verify(scheme, { headers: byNew, secrets: [CURRENT, PREVIOUS] })).toEqual({ ok: true });
    // Order does not matter: a failing first secret never stops the search.
    expect(verify(scheme, { headers: byOld, secrets: [PREVIOUS, CURRENT] })).toEqual({ ok: true });
    expect(verify(scheme, { headers: byNew, secrets: [PREVIOUS, CURRENT] })).toEqual({ ok: true });
    expect(verify(scheme, { headers: byOld, secrets: [CURRENT] })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(verify(scheme, { headers: byNew, secrets: [CURRENT] })).toEqual({ ok: true });
  });

  it('answers missing_signature when any required header is absent', () => {
    const headers = signed(scheme);
    expect(verify(scheme, { headers: {} })).toMatchObject({ ok: false, reason: 'missing_signature' });
    for (const name of Object.keys(headers)) {
      const without = { ...headers };
      delete without[name];
      expect(verify(scheme, { headers: without }), name).toMatchObject({ ok: false, reason: 'missing_signature' });
      expect(verify(scheme, { headers: { ...headers, [name]: undefined } }), name).toMatchObject({ ok: false, reason: 'missing_signature' });
      expect(verify(scheme, { headers: { ...headers, [name]: [] } }), name).toMatchObject({ ok: false, reason: 'missing_signature' });
    }
  });

  it('uses the first value of a repeated header', () => {
    const headers = signed(scheme);
    const name = SIGNATURE_HEADER[scheme];
    const good = headers[name] ?? '';
    const bad = signed(scheme, 'whsec_b3RoZXItc2VjcmV0LW5vdC1vdXJz')[name] ?? '';
    expect(verify(scheme, { headers: { ...headers, [name]: [good, bad] } })).toEqual({ ok: true });
    expect(verify(scheme, { headers: { ...headers, [name]: [bad, good] } })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('answers malformed_signature for empty, garbage, non-hex and extremely long signature headers', () => {
    const headers = signed(scheme);
    const name = SIGNATURE_HEADER[scheme];
    const malformed = [
      '',
      '   ',
      'garbage',
      'sha256=',
      `sha256=${'zz'.repeat(32)}`,
      `sha256=${'ab'.repeat(31)}`,
      'v1,',
      'v1,not base64!',
      't=,v1=',
      'v0=',
      `v0=${'g'.repeat(64)}`,
      '\u0000\uffff\ud800',
      'x'.repeat(MAX_SIGNATURE_HEADER_LENGTH + 1),
      `sha256=${'a'.repeat(10_000_000)}`,
    ];
    for (const value of malformed) {
      const result = verify(scheme, { headers: { ...headers, [name]: value } });
      // A token has no format: only an empty or over-long one is malformed, anything else just wrong.
      const reason = signsBody(scheme) || value.trim() === '' || value.length > MAX_SIGNATURE_HEADER_LENGTH ? 'malformed_signature' : 'signature_mismatch';
      expect(result, value.slice(0, 40)).toMatchObject({ ok: false, reason });
    }
  });

  it('refuses lengthy-but-valid-looking signatures quickly (the length cap applies before parsing)', () => {
    const headers = signed(scheme);
    const name = SIGNATURE_HEADER[scheme];
    const value = `${headers[name] ?? ''} `.repeat(200_000);
    const started = performance.now();
    // Parsed, the value would hold the valid signature (a match, or at least a mismatch): `malformed` says the cap came first.
    expect(verify(scheme, { headers: { ...headers, [name]: value } })).toMatchObject({ ok: false, reason: 'malformed_signature' });
    // A stall bound, ten times what a loaded 2-core CI machine takes (up to about 250 ms with four test workers).
    expect(performance.now() - started).toBeLessThan(2500);
  });

  it('never throws on arbitrary header values', () => {
    let seed = 0x2545f491;
    const random = (): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 0x1_0000_0000;
    };
    const alphabet = 'v01t=,.: sha256=ABCDEFabcdef0123456789+/_-whsec\u0000\u00ff\u2603';
    const junk = (): string => Array.from({ length: Math.floor(random() * 120) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const good = signed(scheme);
    for (let round = 0; round < 500; round += 1) {
      const headers: Record<string, string | string[] | undefined> = { ...good };
      for (const name of Object.keys(good)) {
        const pick = random();
        if (pick < 0.4) headers[name] = junk();
        else if (pick < 0.5) headers[name] = [junk(), junk()];
        else if (pick < 0.6) headers[name] = (good[name] ?? '') + junk();
      }
      const result = verify(scheme, { headers });
      if (!result.ok) {
        expect(['missing_signature', 'malformed_signature', 'timestamp_out_of_tolerance', 'signature_mismatch']).toContain(result.reason);
        expect(result.message).not.toContain(CURRENT);
      }
    }
  });
});

describe('verifySignature input handling', () => {
  it('does not resolve header names to Object.prototype members', () => {
    for (const signatureHeader of ['constructor', '__proto__', 'toString']) {
      expect(verify('hmac-sha256', { headers: {}, signatureHeader })).toMatchObject({ ok: false, reason: 'missing_signature' });
    }
  });

  it('looks up the hmac-sha256 header case-insensitively and defaults it to X-Signature-256', () => {
    const value = signed('hmac-sha256')['x-custom-sig'] ?? '';
    expect(verify('hmac-sha256', { headers: { 'x-custom-sig': value }, signatureHeader: 'X-CUSTOM-SIG' })).toEqual({ ok: true });
    expect(verify('hmac-sha256', { headers: { 'x-signature-256': value }, signatureHeader: undefined })).toEqual({ ok: true });
    const defaults = signatureHeaders({ scheme: 'hmac-sha256', secret: CURRENT, body: BODY, now: NOW });
    expect(Object.keys(defaults)).toEqual(['x-signature-256']);
  });

  it('does not put secrets or expected signatures in failure messages', () => {
    const result = verify('github', { headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } });
    expect(result).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    const expected = signed('github')['x-hub-signature-256'] ?? '';
    if (!result.ok) {
      expect(result.message).not.toContain(CURRENT);
      expect(result.message).not.toContain(expected.slice(7));
    }
  });

  it('throws TypeError only on caller errors', () => {
    expect(() => verify('md5' as SignatureSchemeName)).toThrow(TypeError);
    expect(() => verify('toString' as SignatureSchemeName)).toThrow(TypeError);
    expect(() => verify('github', { secrets: [] })).toThrow(/at least one secret/);
    expect(() => verify('stripe', { now: new Date(Number.NaN) })).toThrow(/now/);
    expect(() => verify('stripe', { toleranceSeconds: -1 })).toThrow(/toleranceSeconds/);
    expect(() => verify('github', { body: 'text' as unknown as Uint8Array })).toThrow(/Uint8Array/);
  });
});
