import { describe, expect, it } from 'vitest';
import { signatureHeaders, verifySignature, type SignatureSchemeName, type VerifyInput } from './index.js';

// Timestamp rules of the timestamped schemes: integers only, tolerance in both directions,
// exactly-at-tolerance accepted.

const BODY = new TextEncoder().encode('{"ping":true}');
const SECRET = 'whsec_dGltZXN0YW1wLXRlc3Qtc2VjcmV0LTAxMjM0NTY3ODk';
const SIGNED_AT = 1_770_000_000;
const at = (unix: number): Date => new Date(unix * 1000);

const TIMESTAMPED: readonly SignatureSchemeName[] = ['standard-webhooks', 'stripe', 'slack'];

function verifyAt(scheme: SignatureSchemeName, nowUnix: number, overrides: Partial<VerifyInput> = {}) {
  return verifySignature({
    scheme,
    headers: signatureHeaders({ scheme, secret: SECRET, body: BODY, now: at(SIGNED_AT), id: 'msg_ts' }),
    body: BODY,
    secrets: [SECRET],
    now: at(nowUnix),
    ...overrides,
  });
}

/** The same request with its timestamp text replaced; the signature is left as signed for SIGNED_AT. */
function withTimestampText(scheme: SignatureSchemeName, text: string): Record<string, string> {
  const headers = signatureHeaders({ scheme, secret: SECRET, body: BODY, now: at(SIGNED_AT), id: 'msg_ts' });
  if (scheme === 'stripe') return { 'stripe-signature': (headers['stripe-signature'] ?? '').replace(`t=${SIGNED_AT}`, `t=${text}`) };
  if (scheme === 'slack') return { ...headers, 'x-slack-request-timestamp': text };
  return { ...headers, 'webhook-timestamp': text };
}

describe.each(TIMESTAMPED)('%s timestamps', (scheme) => {
  it('accepts timestamps exactly at the tolerance, in the past and in the future', () => {
    expect(verifyAt(scheme, SIGNED_AT + 300)).toEqual({ ok: true });
    expect(verifyAt(scheme, SIGNED_AT - 300)).toEqual({ ok: true });
    // Sub-second parts of `now` are floored, as the providers' libraries do.
    expect(
      verifySignature({
        scheme,
        headers: signatureHeaders({ scheme, secret: SECRET, body: BODY, now: at(SIGNED_AT) }),
        body: BODY,
        secrets: [SECRET],
        now: new Date((SIGNED_AT + 300) * 1000 + 999),
      }),
    ).toEqual({ ok: true });
  });

  it('refuses stale and future timestamps beyond the tolerance', () => {
    expect(verifyAt(scheme, SIGNED_AT + 301)).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance', message: expect.stringMatching(/past/) });
    expect(verifyAt(scheme, SIGNED_AT - 301)).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance', message: expect.stringMatching(/future/) });
    expect(verifyAt(scheme, SIGNED_AT + 86_400)).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('honours a custom tolerance, including zero', () => {
    expect(verifyAt(scheme, SIGNED_AT + 30, { toleranceSeconds: 30 })).toEqual({ ok: true });
    expect(verifyAt(scheme, SIGNED_AT + 31, { toleranceSeconds: 30 })).toMatchObject({ reason: 'timestamp_out_of_tolerance' });
    expect(verifyAt(scheme, SIGNED_AT, { toleranceSeconds: 0 })).toEqual({ ok: true });
    expect(verifyAt(scheme, SIGNED_AT + 1, { toleranceSeconds: 0 })).toMatchObject({ reason: 'timestamp_out_of_tolerance' });
  });

  it('refuses non-integer timestamps as malformed', () => {
    for (const text of [
      'abc',
      `${SIGNED_AT}.5`,
      `${SIGNED_AT}e0`,
      '1.77e9',
      `-${SIGNED_AT}`,
      `+${SIGNED_AT}`,
      '0x6980e680',
      `${SIGNED_AT}abc`,
      'NaN',
      'Infinity',
      '١٧٧٠٠٠٠٠٠٠',
    ]) {
      expect(verifyAt(scheme, SIGNED_AT, { headers: withTimestampText(scheme, text) }), text).toMatchObject({ ok: false, reason: 'malformed_signature' });
    }
  });

  it('treats absurdly large integers as out of tolerance, not as a crash', () => {
    expect(verifyAt(scheme, SIGNED_AT, { headers: withTimestampText(scheme, '9'.repeat(400)) })).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('checks the signature over the timestamp text as received', () => {
    // A signature for SIGNED_AT does not cover SIGNED_AT+1 even though that is within tolerance.
    expect(verifyAt(scheme, SIGNED_AT, { headers: withTimestampText(scheme, String(SIGNED_AT + 1)) })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });
});
