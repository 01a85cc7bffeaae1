/** `AGENT_PLATFORM_OIDC_*`: console sign-in is off without an issuer; each variable's bad values stop the server naming it. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { parseOidcDomains } from './oidc-config.js';

const ISSUER = { AGENT_PLATFORM_OIDC_ISSUER: 'https://idp.example.com', AGENT_PLATFORM_OIDC_CLIENT_ID: 'console' };

describe('console sign-in settings', () => {
  it('are off without AGENT_PLATFORM_OIDC_ISSUER', () => {
    expect(loadConfig({}).oidc).toBeNull();
  });

  it('read the issuer, client, provider name, scopes, claims, domains, default role and session length', () => {
    const config = loadConfig({
      ...ISSUER,
      AGENT_PLATFORM_OIDC_CLIENT_SECRET: 's3cret-value',
      AGENT_PLATFORM_OIDC_PROVIDER_NAME: 'Acme SSO',
      AGENT_PLATFORM_OIDC_SCOPES: 'openid email profile groups',
      AGENT_PLATFORM_OIDC_ORG_CLAIM: 'org',
      AGENT_PLATFORM_OIDC_ROLE_CLAIM: 'groups',
      AGENT_PLATFORM_OIDC_DOMAINS: 'Acme.com=acme/member, globex.com=globex',
      AGENT_PLATFORM_OIDC_DEFAULT_ROLE: 'member',
      AGENT_PLATFORM_OIDC_SESSION_HOURS: '8',
    });
    expect(config.oidc).toEqual({
      issuer: 'https://idp.example.com',
      clientId: 'console',
      clientSecret: 's3cret-value',
      providerName: 'Acme SSO',
      scopes: ['openid', 'email', 'profile', 'groups'],
      mapping: {
        orgClaim: 'org',
        roleClaim: 'groups',
        domains: { 'acme.com': { org: 'acme', role: 'member' }, 'globex.com': { org: 'globex' } },
        defaultRole: 'member',
      },
      sessionTtlMs: 8 * 3600 * 1000,
    });
  });

  it('default to a viewer role and the library defaults for the rest', () => {
    expect(loadConfig({ ...ISSUER, AGENT_PLATFORM_OIDC_DOMAINS: 'acme.com=acme' }).oidc).toEqual({
      issuer: 'https://idp.example.com',
      clientId: 'console',
      mapping: { domains: { 'acme.com': { org: 'acme' } }, defaultRole: 'viewer' },
    });
  });

  it.each([
    [{ AGENT_PLATFORM_OIDC_ISSUER: 'idp.example.com' }, /AGENT_PLATFORM_OIDC_ISSUER must be/],
    [{ AGENT_PLATFORM_OIDC_ISSUER: 'https://idp.example.com', AGENT_PLATFORM_OIDC_DOMAINS: 'a.com=a' }, /AGENT_PLATFORM_OIDC_CLIENT_ID is required/],
    [ISSUER, /needs a mapping/],
    [{ ...ISSUER, AGENT_PLATFORM_OIDC_DOMAINS: 'acme.com' }, /AGENT_PLATFORM_OIDC_DOMAINS entry 1 must look like/],
    [{ ...ISSUER, AGENT_PLATFORM_OIDC_DOMAINS: 'acme.com=acme/root' }, /AGENT_PLATFORM_OIDC_DOMAINS names the role "root"/],
    [{ ...ISSUER, AGENT_PLATFORM_OIDC_ORG_CLAIM: 'org', AGENT_PLATFORM_OIDC_DEFAULT_ROLE: 'god' }, /AGENT_PLATFORM_OIDC_DEFAULT_ROLE names the role "god"/],
    [{ ...ISSUER, AGENT_PLATFORM_OIDC_ORG_CLAIM: 'org', AGENT_PLATFORM_OIDC_SESSION_HOURS: '0' }, /AGENT_PLATFORM_OIDC_SESSION_HOURS must be/],
  ])('refuse %o naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(expect.objectContaining({ name: 'ConfigError', message: expect.stringMatching(message) }));
  });

  it('never put the client secret in an error', () => {
    try {
      loadConfig({ ...ISSUER, AGENT_PLATFORM_OIDC_CLIENT_SECRET: 'do-not-print-me', AGENT_PLATFORM_OIDC_DOMAINS: 'bad' });
      expect.unreachable();
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('do-not-print-me');
    }
  });

  it('parse domain lists with spaces and empty entries', () => {
    expect(parseOidcDomains(' a.com=a/admin ,, b.org=b ')).toEqual({ 'a.com': { org: 'a', role: 'admin' }, 'b.org': { org: 'b' } });
    expect(parseOidcDomains(undefined)).toEqual({});
  });
});
