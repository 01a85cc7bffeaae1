import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  signGithub,
  signGitlabToken,
  signHmacSha256,
  signSlack,
  signStandardWebhooks,
  signStripe,
  standardWebhooksKey,
  verifySignature,
  type VerifyInput,
} from './index.js';

// Scheme-specific header formats.

const BODY_TEXT = '{"type":"invoice.paid","amount":1200}';
const BODY = new TextEncoder().encode(BODY_TEXT);
const SECRET = 'whsec_Zm9ybWF0cy10ZXN0LXNlY3JldC0wMTIzNDU2Nzg5YWI';
const OTHER = 'whsec_YW5vdGhlci1zZWNyZXQtZm9yLWZvcm1hdC10ZXN0cw';
const T = 1_770_000_000;
const NOW = new Date(T * 1000);

const run = (input: Omit<VerifyInput, 'body' | 'secrets' | 'now'> & Partial<VerifyInput>) =>
  verifySignature({ body: BODY, secrets: [SECRET], now: NOW, ...input });

describe('hmac-sha256 format', () => {
  const hex = signHmacSha256(SECRET, BODY);

  it('signs as plain lowercase hex, and accepts it with or without sha256=, in either case', () => {
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    for (const value of [hex, `sha256=${hex}`, `Sha256=${hex.toUpperCase()}`, ` ${hex} `]) {
      expect(run({ scheme: 'hmac-sha256', headers: { 'x-signature-256': value }, signatureHeader: 'X-Signature-256' }), value).toEqual({ ok: true });
    }
  });

  it('refuses other prefixes and wrong lengths as malformed', () => {
    for (const value of [`sha1=${hex}`, `sha256:${hex}`, `sha256=sha256=${hex}`, hex.slice(2), `${hex}00`, `v1=${hex}`]) {
      expect(run({ scheme: 'hmac-sha256', headers: { 'x-signature-256': value } }), value).toMatchObject({ ok: false, reason: 'malformed_signature' });
    }
  });

  it('signs string and byte bodies alike (UTF-8)', () => {
    expect(signHmacSha256(SECRET, BODY_TEXT)).toBe(hex);
    expect(signHmacSha256(SECRET, 'é')).toBe(signHmacSha256(SECRET, Uint8Array.from([0xc3, 0xa9])));
  });
});

describe('github format', () => {
  const value = signGithub(SECRET, BODY);

  it('requires the sha256= prefix', () => {
    expect(value).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(run({ scheme: 'github', headers: { 'x-hub-signature-256': value } })).toEqual({ ok: true });
    expect(run({ scheme: 'github', headers: { 'x-hub-signature-256': value.slice(7) } })).toMatchObject({ ok: false, reason: 'malformed_signature' });
    expect(run({ scheme: 'github', headers: { 'x-hub-signature-256': `sha256=${'xy'.repeat(32)}` } })).toMatchObject({
      ok: false,
      reason: 'malformed_signature',
    });
  });

  it('ignores the legacy SHA-1 X-Hub-Signature header', () => {
    expect(run({ scheme: 'github', headers: { 'x-hub-signature': `sha1=${'0'.repeat(40)}` } })).toMatchObject({ ok: false, reason: 'missing_signature' });
  });
});

describe('gitlab-token format', () => {
  // GitLab sends the webhook's secret token itself in X-Gitlab-Token, and signs no body.
  const token = 'glwh-secret-token-2f9c';

  it('sends the token itself, and accepts exactly it (surrounding whitespace aside)', () => {
    expect(signGitlabToken(token)).toBe(token);
    for (const value of [token, ` ${token} `, [token, 'another']]) {
      expect(run({ scheme: 'gitlab-token', headers: { 'x-gitlab-token': value }, secrets: [token] }), String(value)).toEqual({ ok: true });
    }
  });

  it('refuses another token, a prefix or an extension of it, and another case', () => {
    for (const value of ['glwh-secret-token-2f9d', token.slice(0, -1), `${token}0`, token.toUpperCase(), `sha256=${token}`]) {
      expect(run({ scheme: 'gitlab-token', headers: { 'x-gitlab-token': value }, secrets: [token] }), value).toMatchObject({
        ok: false,
        reason: 'signature_mismatch',
      });
    }
  });

  it('answers missing_signature without the header, and names no token in its messages', () => {
    const missing = run({ scheme: 'gitlab-token', headers: { 'x-gitlab-event': 'Note Hook' }, secrets: [token] });
    expect(missing).toMatchObject({ ok: false, reason: 'missing_signature', message: 'Missing X-Gitlab-Token header' });
    const wrong = run({ scheme: 'gitlab-token', headers: { 'x-gitlab-token': 'guess-guess-guess' }, secrets: [token] });
    expect(wrong.ok || wrong.message.includes(token) || wrong.message.includes('guess')).toBe(false);
  });

  it('accepts the previous token during a rotation', () => {
    expect(run({ scheme: 'gitlab-token', headers: { 'x-gitlab-token': 'old-token-0000' }, secrets: [token, 'old-token-0000'] })).toEqual({ ok: true });
  });
});

describe('standard-webhooks format', () => {
  const id = 'msg_2abc';
  const good = signStandardWebhooks({ secret: SECRET, id, timestamp: T, body: BODY });
  const wrong = signStandardWebhooks({ secret: OTHER, id, timestamp: T, body: BODY });
  const headers = (signature: string) => ({ 'webhook-id': id, 'webhook-timestamp': String(T), 'webhook-signature': signature });

  it('accepts any matching v1 entry among several, e.g. only the second', () => {
    expect(run({ scheme: 'standard-webhooks', headers: headers(`${wrong} ${good}`) })).toEqual({ ok: true });
    expect(run({ scheme: 'standard-webhooks', headers: headers(`${wrong}  ${wrong} ${good}`) })).toEqual({ ok: true });
    expect(run({ scheme: 'standard-webhooks', headers: headers(`${wrong} ${wrong}`) })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('ignores other versions and skips malformed v1 entries', () => {
    const v1a = `v1a,${good.slice(3)}`;
    expect(run({ scheme: 'standard-webhooks', headers: headers(`v2,abc ${v1a} ${good}`) })).toEqual({ ok: true });
    expect(run({ scheme: 'standard-webhooks', headers: headers(`v1,%%% ${good}`) })).toEqual({ ok: true });
    expect(run({ scheme: 'standard-webhooks', headers: headers(v1a) })).toMatchObject({
      ok: false,
      reason: 'malformed_signature',
      message: expect.stringMatching(/no v1/),
    });
    expect(run({ scheme: 'standard-webhooks', headers: headers(`v1,${good.slice(3, -1)}`) })).toMatchObject({ ok: false, reason: 'malformed_signature' });
    expect(run({ scheme: 'standard-webhooks', headers: headers(`v1,${Buffer.alloc(31).toString('base64')}`) })).toMatchObject({
      ok: false,
      reason: 'malformed_signature',
    });
  });

  it('binds the signature to the webhook-id', () => {
    expect(run({ scheme: 'standard-webhooks', headers: { ...headers(good), 'webhook-id': 'msg_other' } })).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('decodes whsec_ secrets in base64 and base64url alike, and secrets without the prefix', () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => (i % 2 === 0 ? 0xfb : 0xff)));
    const url = `whsec_${key.toString('base64url')}`;
    const std = `whsec_${key.toString('base64')}`;
    expect(url).toMatch(/[-_]/);
    expect(Buffer.from(standardWebhooksKey(url))).toEqual(key);
    expect(Buffer.from(standardWebhooksKey(std))).toEqual(key);
    expect(Buffer.from(standardWebhooksKey(key.toString('base64')))).toEqual(key);
    // Read as Node's base64 decoder reads it (stray characters skipped, `=` ends the data), so
    // keys of secrets stored before the decoder was written without Buffer stay the same.
    for (const odd of ['whsec_ab$cd', 'whsec_abcd=efgh', 'whsec_YW Jj\n', 'whsec_abcde', 'whsec_Y=WJj']) {
      expect(Buffer.from(standardWebhooksKey(odd))).toEqual(Buffer.from(odd.slice('whsec_'.length), 'base64'));
    }
    const signature = signStandardWebhooks({ secret: std, id, timestamp: T, body: BODY });
    expect(run({ scheme: 'standard-webhooks', headers: headers(signature), secrets: [url] })).toEqual({ ok: true });
  });

  it('verifies secrets as generated by the webhooks service (whsec_ + base64url of 32 random bytes)', () => {
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const signature = signStandardWebhooks({ secret, id, timestamp: T, body: BODY });
    expect(run({ scheme: 'standard-webhooks', headers: headers(signature), secrets: [secret] })).toEqual({ ok: true });
  });

  it('refuses non-integer timestamps when signing', () => {
    expect(() => signStandardWebhooks({ secret: SECRET, id, timestamp: 1.5, body: BODY })).toThrow(TypeError);
  });
});

describe('stripe format', () => {
  const good = signStripe({ secret: SECRET, timestamp: T, body: BODY });
  const goodV1 = good.split(',v1=')[1] ?? '';
  const wrongV1 = signStripe({ secret: OTHER, timestamp: T, body: BODY }).split(',v1=')[1] ?? '';
  const header = (value: string) => ({ 'stripe-signature': value });

  it('uses the secret literally (whsec_ prefix included, no base64 decoding)', () => {
    expect(good).toMatch(/^t=1770000000,v1=[0-9a-f]{64}$/);
    expect(good).not.toBe(signStripe({ secret: SECRET.slice('whsec_'.length), timestamp: T, body: BODY }));
  });

  it('accepts any matching v1 among several, e.g. only the second, and ignores v0 and unknown keys', () => {
    expect(run({ scheme: 'stripe', headers: header(`t=${T},v1=${wrongV1},v1=${goodV1}`) })).toEqual({ ok: true });
    expect(run({ scheme: 'stripe', headers: header(`t=${T},v1=${wrongV1},v0=${wrongV1},v1=${goodV1}`) })).toEqual({ ok: true });
    expect(run({ scheme: 'stripe', headers: header(`v1=${goodV1},t=${T}`) })).toEqual({ ok: true });
    expect(run({ scheme: 'stripe', headers: header(`t=${T}, v1=${goodV1}, x=1, junk`) })).toEqual({ ok: true });
    expect(run({ scheme: 'stripe', headers: header(`t=${T},v1=nothex,v1=${goodV1}`) })).toEqual({ ok: true });
    expect(run({ scheme: 'stripe', headers: header(`t=${T},v1=${wrongV1},v1=${wrongV1}`) })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('refuses headers without a timestamp, without v1, or with conflicting timestamps', () => {
    expect(run({ scheme: 'stripe', headers: header(`v1=${goodV1}`) })).toMatchObject({
      reason: 'malformed_signature',
      message: expect.stringMatching(/timestamp/),
    });
    expect(run({ scheme: 'stripe', headers: header(`t=${T},v0=${goodV1}`) })).toMatchObject({
      reason: 'malformed_signature',
      message: expect.stringMatching(/no v1/),
    });
    expect(run({ scheme: 'stripe', headers: header(`t=${T},v1=${'zz'.repeat(32)}`) })).toMatchObject({ reason: 'malformed_signature' });
    expect(run({ scheme: 'stripe', headers: header(`t=${T},t=${T - 1},v1=${goodV1}`) })).toMatchObject({ reason: 'malformed_signature' });
    expect(run({ scheme: 'stripe', headers: header(`t=${T},t=${T},v1=${goodV1}`) })).toEqual({ ok: true });
  });
});

describe('slack format', () => {
  const good = signSlack({ secret: SECRET, timestamp: T, body: BODY });
  const headers = (signature: string) => ({ 'x-slack-signature': signature, 'x-slack-request-timestamp': String(T) });

  it('requires the v0= prefix and 64 hex digits', () => {
    expect(good).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(run({ scheme: 'slack', headers: headers(good) })).toEqual({ ok: true });
    expect(run({ scheme: 'slack', headers: headers(good.slice(3)) })).toMatchObject({ reason: 'malformed_signature' });
    expect(run({ scheme: 'slack', headers: headers(`v1=${good.slice(3)}`) })).toMatchObject({ reason: 'malformed_signature' });
    expect(run({ scheme: 'slack', headers: headers(`v0=${good.slice(3, -2)}`) })).toMatchObject({ reason: 'malformed_signature' });
  });
});
