import { describe, expect, it } from 'vitest';
import { isInternalAddress } from './addresses.js';
import { formatAllowlist, matchAllowlist, parseAllowEntry, parseAllowlist } from './allowlist.js';

describe('egress allowlist entries', () => {
  it('parse names, wildcards, IP addresses and ports', () => {
    expect(parseAllowEntry('GitHub.com.', ['x'])).toEqual({ host: 'github.com', wildcard: false, port: null });
    expect(parseAllowEntry('*.example.com:443', ['x'])).toEqual({ host: 'example.com', wildcard: true, port: 443 });
    expect(parseAllowEntry('10.0.0.5:8080', ['x'])).toEqual({ host: '10.0.0.5', wildcard: false, port: 8080 });
    expect(parseAllowEntry('[::1]:3000', ['x'])).toEqual({ host: '::1', wildcard: false, port: 3000 });
    expect(parseAllowEntry('fd00::1', ['x'])).toEqual({ host: 'fd00::1', wildcard: false, port: null });
    expect(formatAllowlist(parseAllowlist(['*.Example.com:443', '[::1]:3000', 'github.com'], ['x']))).toEqual([
      '*.example.com:443',
      '[::1]:3000',
      'github.com',
    ]);
  });

  it('refuse what is not a host, naming where it is', () => {
    for (const bad of [
      '',
      'http://github.com',
      'github.com/path',
      '*.10.0.0.1',
      'a..b',
      'github.com:0',
      'github.com:70000',
      '*',
      'exa mple.com',
      '[github.com]:80',
    ]) {
      expect(() => parseAllowEntry(bad, ['egress', 'allow', 3]), bad).toThrow(/is not a host/);
    }
    expect.assertions(11);
    try {
      parseAllowlist(['ok.com', 'not a host'], ['egress', 'allow']);
    } catch (error) {
      expect(error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ loc: ['egress', 'allow', 1] }] });
    }
  });

  it('match exact names, subdomains of a wildcard (not the name itself), and ports', () => {
    const list = parseAllowlist(['github.com', '*.npmjs.org', 'example.com:8080', '127.0.0.1'], ['x']);
    expect(matchAllowlist(list, 'GITHUB.COM', 443)).toMatchObject({ host: 'github.com', wildcard: false });
    expect(matchAllowlist(list, 'api.github.com', 443)).toBeNull();
    expect(matchAllowlist(list, 'registry.npmjs.org', 443)).toMatchObject({ wildcard: true });
    expect(matchAllowlist(list, 'a.b.npmjs.org', 80)).toMatchObject({ wildcard: true });
    expect(matchAllowlist(list, 'npmjs.org', 443)).toBeNull();
    expect(matchAllowlist(list, 'evilnpmjs.org', 443)).toBeNull();
    expect(matchAllowlist(list, 'example.com', 8080)).not.toBeNull();
    expect(matchAllowlist(list, 'example.com', 80)).toBeNull();
    expect(matchAllowlist(list, '127.0.0.1', 9)).toMatchObject({ host: '127.0.0.1' });
    // An exact entry wins over a wildcard: only an exact one may lead to an internal address.
    const both = parseAllowlist(['*.corp.test', 'git.corp.test'], ['x']);
    expect(matchAllowlist(both, 'git.corp.test', 443)).toMatchObject({ wildcard: false });
  });

  it('tell internal addresses (loopback, private, link-local, CGNAT, mapped) from public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect(isInternalAddress(address), address).toBe(true);
    }
    for (const address of ['1.1.1.1', '140.82.112.3', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isInternalAddress(address), address).toBe(false);
    }
  });
});
