/** The mapping's rules, one by one: which org and role a user's claims give, and why none. */
import { describe, expect, it } from 'vitest';
import { roleMappingSchema } from './oidc-options.js';
import { placeUser } from './role-mapping.js';

const mapping = roleMappingSchema.parse({
  orgClaim: 'org',
  roleClaim: 'groups',
  domains: { 'acme.com': { org: 'acme', role: 'member' }, 'contractors.acme.com': { org: 'acme' } },
  defaultRole: 'viewer',
});

describe('placeUser', () => {
  it('takes the org from the email domain, lower-cased, with the domain role', () => {
    expect(placeUser(mapping, { sub: '1', email: 'Ada@ACME.com', email_verified: true })).toEqual({ ok: true, orgId: 'acme', role: 'member' });
  });

  it('falls back to the default role for a domain without one', () => {
    expect(placeUser(mapping, { sub: '1', email: 'bo@contractors.acme.com' })).toEqual({ ok: true, orgId: 'acme', role: 'viewer' });
  });

  it('prefers the org claim to the domain, and the role claim (highest listed) to the domain role', () => {
    expect(placeUser(mapping, { sub: '1', email: 'ada@acme.com', org: 'globex', groups: ['viewer', 'admin', 'staff'] })).toEqual({
      ok: true,
      orgId: 'globex',
      role: 'admin',
    });
    // The domain's role belongs to the domain's org only.
    expect(placeUser(mapping, { sub: '1', email: 'ada@acme.com', org: 'globex' })).toEqual({ ok: true, orgId: 'globex', role: 'viewer' });
  });

  it('ignores role claims that name no role', () => {
    expect(placeUser(mapping, { sub: '1', email: 'ada@acme.com', groups: 'superuser' })).toEqual({ ok: true, orgId: 'acme', role: 'member' });
    expect(placeUser(mapping, { sub: '1', email: 'ada@acme.com', groups: [1, null] })).toEqual({ ok: true, orgId: 'acme', role: 'member' });
  });

  it('refuses a user nothing maps, and a domain from an email the provider marked unverified', () => {
    const unmapped = placeUser(mapping, { sub: '1', email: 'mo@other.com' });
    expect(unmapped).toMatchObject({ ok: false });
    if (!unmapped.ok) expect(unmapped.reason).toContain('other.com is not mapped');
    expect(placeUser(mapping, { sub: '1', email: 'eve@acme.com', email_verified: false })).toMatchObject({ ok: false });
    expect(placeUser(mapping, { sub: '1' })).toMatchObject({ ok: false });
    // An empty org claim is no org.
    expect(placeUser(mapping, { sub: '1', org: '' })).toMatchObject({ ok: false });
  });

  it('never matches a domain by suffix: sub.acme.com is not acme.com', () => {
    expect(placeUser(mapping, { sub: '1', email: 'x@evil-acme.com' })).toMatchObject({ ok: false });
    expect(placeUser(mapping, { sub: '1', email: 'x@sub.acme.com' })).toMatchObject({ ok: false });
  });
});
