import { afterEach, describe, expect, it } from 'vitest';
import { guardedLookup, BlockedAddressError } from './guarded-lookup.js';
import { sendOutbound } from './sender.js';
import { startSubscriber } from '@agent-platform/testing/webhook-subscriber';
import { blockedAddressReason } from './address-policy.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('sendOutbound', () => {
  it('refuses a private address at send time without connecting, unless allowed', async () => {
    const subscriber = await startSubscriber();
    closers.push(subscriber.close);
    const request = { url: subscriber.url, headers: {}, body: '{}', timeoutMs: 2_000 };
    expect(await sendOutbound({ ...request, allowPrivate: false })).toEqual({ statusCode: null, error: 'refused: 127.0.0.1 is a loopback address' });
    const viaName = await sendOutbound({ ...request, url: subscriber.url.replace('127.0.0.1', 'localhost'), allowPrivate: false });
    expect(viaName.error).toMatch(/^refused: localhost is this machine/);
    expect(subscriber.received).toHaveLength(0);
    expect(await sendOutbound({ ...request, allowPrivate: true })).toEqual({ statusCode: 200, error: null });
    expect(subscriber.received).toHaveLength(1);
  });

  it('checks every address a name resolves to, as the socket connects', async () => {
    const error = await new Promise<Error | null>((resolve) => guardedLookup('localhost', {}, (caught) => resolve(caught)));
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect(error?.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1) is a loopback address$/);
  });

  it('reports a connection failure and a time limit as attempt errors', async () => {
    const refused = await sendOutbound({ url: 'http://127.0.0.1:1/x', headers: {}, body: '{}', timeoutMs: 2_000, allowPrivate: true });
    expect(refused).toMatchObject({ statusCode: null, error: expect.stringMatching(/^connection failed: /) });
  });
});

describe('blockedAddressReason', () => {
  it('allows public unicast addresses only', () => {
    expect(blockedAddressReason('93.184.216.34')).toBeNull();
    expect(blockedAddressReason('2606:4700:4700::1111')).toBeNull();
    expect(blockedAddressReason('100.64.0.1')).toBe('100.64.0.1 is a shared (carrier-grade NAT) address');
    expect(blockedAddressReason('fe80::1')).toBe('fe80::1 is a link-local address');
    expect(blockedAddressReason('::ffff:10.0.0.1')).toBe('10.0.0.1 is a private address');
    expect(blockedAddressReason('224.0.0.1')).toMatch(/non-public \(multicast\)/);
  });
});
