/**
 * Console sign-in with OpenID Connect, from the environment: on when `AGENT_PLATFORM_OIDC_ISSUER`
 * is set. The redirect URI is `AGENT_PLATFORM_PUBLIC_URL` + `/auth/oidc/callback`, so the public
 * URL is added where the server knows its final value (see `main.ts`). The client secret is
 * never logged or echoed in an error.
 * @module
 */
import { ROLES, type Role } from '@agent-platform/core';
import type { OidcSignInOptions } from '@agent-platform/http';

/** Everything but the public URL, which the server fills in once its port is known. */
export type OidcConfig = Omit<OidcSignInOptions, 'publicUrl'>;

type Env = Record<string, string | undefined>;

/** Named `ConfigError` like `config.ts`'s, so the server stops with its message (a class of its own: `config.ts` imports this file). */
export class OidcConfigError extends Error {
  override readonly name = 'ConfigError';
}

function parseRole(name: string, value: string): Role {
  if ((ROLES as readonly string[]).includes(value)) return value as Role;
  throw new OidcConfigError(`${name} names the role "${value.slice(0, 20)}"; roles are ${ROLES.join(', ')}`);
}

/**
 * `AGENT_PLATFORM_OIDC_DOMAINS`: `acme.com=acme/member,globex.com=globex` — email domain, org,
 * and optionally the role its users get on first sign-in.
 */
export function parseOidcDomains(value: string | undefined): Record<string, { org: string; role?: Role }> {
  const domains: Record<string, { org: string; role?: Role }> = {};
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const [index, entry] of entries.entries()) {
    const match = /^([a-z0-9.-]+)=([^/\s]+)(?:\/(\S+))?$/i.exec(entry);
    if (!match?.[1] || !match[2]) {
      throw new OidcConfigError(`AGENT_PLATFORM_OIDC_DOMAINS entry ${index + 1} must look like domain=org or domain=org/role (e.g. acme.com=acme/member)`);
    }
    domains[match[1].toLowerCase()] = { org: match[2], ...(match[3] ? { role: parseRole('AGENT_PLATFORM_OIDC_DOMAINS', match[3]) } : {}) };
  }
  return domains;
}

export function parseOidcConfig(env: Env): OidcConfig | null {
  const issuer = env.AGENT_PLATFORM_OIDC_ISSUER?.trim();
  if (!issuer) return null;
  if (!URL.canParse(issuer) || !/^https?:$/.test(new URL(issuer).protocol)) {
    throw new OidcConfigError(`AGENT_PLATFORM_OIDC_ISSUER must be the provider's issuer URL, got "${issuer.slice(0, 100)}"`);
  }
  const clientId = env.AGENT_PLATFORM_OIDC_CLIENT_ID?.trim();
  if (!clientId) throw new OidcConfigError('AGENT_PLATFORM_OIDC_CLIENT_ID is required with AGENT_PLATFORM_OIDC_ISSUER');
  const clientSecret = env.AGENT_PLATFORM_OIDC_CLIENT_SECRET?.trim();
  const scopes = env.AGENT_PLATFORM_OIDC_SCOPES?.split(/[\s,]+/).filter(Boolean);
  const orgClaim = env.AGENT_PLATFORM_OIDC_ORG_CLAIM?.trim();
  const roleClaim = env.AGENT_PLATFORM_OIDC_ROLE_CLAIM?.trim();
  const defaultRole = env.AGENT_PLATFORM_OIDC_DEFAULT_ROLE?.trim();
  const domains = parseOidcDomains(env.AGENT_PLATFORM_OIDC_DOMAINS);
  if (!orgClaim && Object.keys(domains).length === 0) {
    throw new OidcConfigError('AGENT_PLATFORM_OIDC_ISSUER needs a mapping: AGENT_PLATFORM_OIDC_ORG_CLAIM, AGENT_PLATFORM_OIDC_DOMAINS, or both');
  }
  const hours = env.AGENT_PLATFORM_OIDC_SESSION_HOURS?.trim();
  const sessionHours = hours ? Number(hours) : undefined;
  if (sessionHours !== undefined && !(Number.isFinite(sessionHours) && sessionHours > 0 && sessionHours <= 24 * 30)) {
    throw new OidcConfigError(`AGENT_PLATFORM_OIDC_SESSION_HOURS must be a number of hours above 0 and at most 720, got "${hours?.slice(0, 20)}"`);
  }
  return {
    issuer,
    clientId,
    ...(clientSecret ? { clientSecret } : {}),
    ...(env.AGENT_PLATFORM_OIDC_PROVIDER_NAME?.trim() ? { providerName: env.AGENT_PLATFORM_OIDC_PROVIDER_NAME.trim() } : {}),
    ...(scopes && scopes.length > 0 ? { scopes } : {}),
    mapping: {
      ...(orgClaim ? { orgClaim } : {}),
      ...(roleClaim ? { roleClaim } : {}),
      domains,
      defaultRole: defaultRole ? parseRole('AGENT_PLATFORM_OIDC_DEFAULT_ROLE', defaultRole) : 'viewer',
    },
    ...(sessionHours !== undefined ? { sessionTtlMs: Math.round(sessionHours * 3600 * 1000) } : {}),
  };
}
