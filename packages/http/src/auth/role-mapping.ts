/**
 * The configured mapping applied to what the provider says about a user: which org, which role
 * on first sign-in — or why not. Pure, so every rule is tested without a provider.
 * @module
 */
import { ROLES, type Role } from '@agent-platform/core';
import type { RoleMapping } from './oidc-options.js';

export type Placement = { ok: true; orgId: string; role: Role } | { ok: false; reason: string };

const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** The highest role a claim names (a string or a list of them); `undefined` when it names none. */
function roleFromClaim(value: unknown): Role | undefined {
  const named = (Array.isArray(value) ? value : [value]).filter(isRole);
  return named.sort((a, b) => ROLES.indexOf(b) - ROLES.indexOf(a))[0];
}

/** The email's domain, lower case, unless the provider said the email is not verified. */
function verifiedDomain(claims: Record<string, unknown>): string | undefined {
  const email = claims.email;
  if (typeof email !== 'string' || claims.email_verified === false) return undefined;
  const at = email.lastIndexOf('@');
  return at > 0 ? email.slice(at + 1).toLowerCase() : undefined;
}

export function placeUser(mapping: RoleMapping, claims: Record<string, unknown>): Placement {
  const fromClaim = mapping.orgClaim ? claims[mapping.orgClaim] : undefined;
  const domain = verifiedDomain(claims);
  // Own keys only: an email at `constructor` must not find an inherited member.
  const byDomain = domain !== undefined && Object.hasOwn(mapping.domains, domain) ? mapping.domains[domain] : undefined;
  const orgId = typeof fromClaim === 'string' && fromClaim.length > 0 ? fromClaim : byDomain?.org;
  if (!orgId) {
    const tried = [mapping.orgClaim && `no "${mapping.orgClaim}" claim`, domain ? `the email domain ${domain} is not mapped` : 'no verified email'].filter(
      Boolean,
    );
    return { ok: false, reason: `Your account is not mapped to an org of this platform (${tried.join('; ')}). Ask its administrator to add you.` };
  }
  const claimed = mapping.roleClaim ? roleFromClaim(claims[mapping.roleClaim]) : undefined;
  // A domain's role applies only to the org that domain gives.
  const domainRole = byDomain && byDomain.org === orgId ? byDomain.role : undefined;
  return { ok: true, orgId, role: claimed ?? domainRole ?? mapping.defaultRole };
}
