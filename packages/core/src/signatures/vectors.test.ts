import { describe, expect, it } from 'vitest';
import { signGithub, signHmacSha256, signLinear, signSlack, signStandardWebhooks, signStripe, verifySignature } from './index.js';

// Known-answer vectors: published by the providers, or (Stripe, hmac-sha256) computed once with
// `openssl dgst -sha256 -hmac <secret>` and hard-coded, so none of these re-runs the implementation.
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const at = (unix: number): Date => new Date(unix * 1000);

describe('known-answer vectors', () => {
  it('github: the vector from GitHub’s "Validating webhook deliveries" docs', () => {
    const secret = "It's a Secret to Everybody";
    const expected = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(signGithub(secret, 'Hello, World!')).toBe(expected);
    const result = verifySignature({
      scheme: 'github',
      headers: { 'x-hub-signature-256': expected },
      body: bytes('Hello, World!'),
      secrets: [secret],
      now: new Date(),
    });
    expect(result).toEqual({ ok: true });
  });

  it('standard-webhooks: the reference vector of the Standard Webhooks test suites', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const timestamp = 1614265330;
    const body = '{"test": 2432232314}';
    const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    expect(signStandardWebhooks({ secret, id, timestamp, body })).toBe(expected);
    const result = verifySignature({
      scheme: 'standard-webhooks',
      headers: { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': expected },
      body: bytes(body),
      secrets: [secret],
      now: at(timestamp + 10),
    });
    expect(result).toEqual({ ok: true });
  });

  it('stripe: a vector computed independently with openssl (secret used literally, whsec_ included)', () => {
    // printf '%s' '1700000000.<body>' | openssl dgst -sha256 -hmac 'whsec_3f1c7e0a9b5d4e2f8a6c1b0d9e7f5a3c'
    const secret = 'whsec_3f1c7e0a9b5d4e2f8a6c1b0d9e7f5a3c';
    const body = '{"id":"evt_1NG8Du2eZvKYlo2CUI79vXWy","object":"event","type":"payment_intent.succeeded"}';
    const expected = 't=1700000000,v1=6fb8294e4ff3cfad691bada20a30c0fd1f738a1d402118d5555b5c8048b4401b';
    expect(signStripe({ secret, timestamp: 1700000000, body })).toBe(expected);
    const result = verifySignature({
      scheme: 'stripe',
      headers: { 'stripe-signature': expected },
      body: bytes(body),
      secrets: [secret],
      now: at(1700000000),
    });
    expect(result).toEqual({ ok: true });
  });

  it('slack: the example from Slack’s "Verifying requests from Slack" docs', () => {
    const secret = '8f742231b10e8888abcd99yyyzzz85a5';
    const timestamp = 1531420618;
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const expected = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
    expect(signSlack({ secret, timestamp, body })).toBe(expected);
    const result = verifySignature({
      scheme: 'slack',
      headers: { 'x-slack-signature': expected, 'x-slack-request-timestamp': String(timestamp) },
      body: bytes(body),
      secrets: [secret],
      now: at(timestamp - 60),
    });
    expect(result).toEqual({ ok: true });
  });

  it('hmac-sha256: a vector computed independently with openssl, with and without the sha256= prefix', () => {
    // printf '%s' '{"event":"order.created","id":42}' | openssl dgst -sha256 -hmac 'custom-secret-for-hmac'
    const secret = 'custom-secret-for-hmac';
    const body = '{"event":"order.created","id":42}';
    const hex = '96fecbc867bdfd277bd661e1b51c4a1817b19bc9f24c7159a2fc3874e9fb9a71';
    expect(signHmacSha256(secret, body)).toBe(hex);
    for (const value of [hex, `sha256=${hex}`, hex.toUpperCase(), `SHA256=${hex}`]) {
      const result = verifySignature({
        scheme: 'hmac-sha256',
        headers: { 'x-signature-256': value },
        body: bytes(body),
        secrets: [secret],
        signatureHeader: 'X-Signature-256',
        now: new Date(),
      });
      expect(result, value).toEqual({ ok: true });
    }
  });

  it('linear: a vector computed independently with openssl, and the webhookTimestamp window', () => {
    // printf '%s' '<body>' | openssl dgst -sha256 -hmac 'lin_wh_7b3c2a9f0e1d4c6b8a5f'
    const secret = 'lin_wh_7b3c2a9f0e1d4c6b8a5f';
    const body =
      '{"action":"create","type":"Issue","data":{"id":"2174add1-f7c8-44e3-bbf3-2d60b5ea8bc9","title":"Login broken"},"webhookTimestamp":1676056940508}';
    const expected = '0ae7bdf9b9b21de644481b3b6b472a36f50893d6cf972a338a0d4d965ca2073e';
    expect(signLinear(secret, body)).toBe(expected);
    const sentAt = 1676056940.508;
    const verify = (now: Date, signature = expected, text = body) =>
      verifySignature({ scheme: 'linear', headers: { 'linear-signature': signature }, body: bytes(text), secrets: [secret], now });
    expect(verify(new Date(sentAt * 1000 + 30_000))).toEqual({ ok: true });
    expect(verify(new Date(sentAt * 1000 - 30_000))).toEqual({ ok: true });
    // A minute is Linear's window, whatever longer tolerance the webhook has (default 300 s).
    expect(verify(new Date(sentAt * 1000 + 61_000))).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verify(new Date(sentAt * 1000 - 61_000))).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verify(new Date(sentAt * 1000), expected.toUpperCase())).toEqual({ ok: true });
    expect(verify(new Date(sentAt * 1000), `sha256=${expected}`)).toMatchObject({ ok: false, reason: 'malformed_signature' });
    expect(verify(new Date(sentAt * 1000), expected, body.replace('Login', 'Logout'))).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    // Genuinely signed, but no webhookTimestamp to check: refused.
    const bare = '{"type":"Issue"}';
    expect(verify(new Date(), signLinear(secret, bare), bare)).toMatchObject({
      ok: false,
      reason: 'malformed_signature',
      message: 'Linear payload has no numeric webhookTimestamp',
    });
  });
});
