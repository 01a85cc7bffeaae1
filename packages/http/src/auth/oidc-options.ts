/**
 * What a host configures for console sign-in with OpenID Connect: the provider, this client, and
 * the mapping that places a user in an org and role on their first sign-in. One zod schema, the
 * single source of the option's type and of the checks made when the handler is created.
 * @module
 */
import { roleSchema } from '@agent-platform/core';
import { z } from 'zod';

/** Where an email domain's users go. */
export const domainMappingSchema = z.object({
  org: z.string().min(1),
  /** Their role on first sign-in; default the mapping's `defaultRole`. */
  role: roleSchema.optional(),
});

/**
 * How a signed-in user is placed, first match wins: the org from `orgClaim` when the provider
 * sends it, else from the email's domain in `domains`; the role from `roleClaim` when it names a
 * role, else the domain's role, else `defaultRole`. A user neither gives an org is refused.
 */
export const roleMappingSchema = z.object({
  /** A claim (ID token or userinfo) whose string value is the org id, e.g. `org`. */
  orgClaim: z.string().min(1).optional(),
  /** A claim whose value (a string, or a list: the highest role wins) is `viewer`, `member`, `admin` or `owner`. */
  roleClaim: z.string().min(1).optional(),
  /** Email domain (lower case, e.g. `acme.com`) → org and role. Used only for emails the provider did not mark unverified. */
  domains: z.record(z.string().min(1), domainMappingSchema).default({}),
  /** The role when neither the claim nor the domain gives one. Default `viewer`: least privilege. */
  defaultRole: roleSchema.default('viewer'),
});
export type RoleMapping = z.infer<typeof roleMappingSchema>;

export const oidcSignInOptionsSchema = z.object({
  /** The provider's issuer URL; its `/.well-known/openid-configuration` is read at the first sign-in. */
  issuer: z.url(),
  clientId: z.string().min(1),
  /** For a confidential client (sent with HTTP Basic); omit for a public client, PKCE alone. */
  clientSecret: z.string().min(1).optional(),
  /**
   * Where browsers reach the platform, e.g. `https://agents.example.com`: the redirect URI is
   * `<publicUrl>/auth/oidc/callback` and the console is at `<publicUrl>/console/`. An `https`
   * URL makes the cookies `Secure` with the `__Host-` prefix.
   */
  publicUrl: z.url(),
  /** Shown on the console's button: "Sign in with <providerName>". */
  providerName: z.string().min(1).default('OpenID Connect'),
  scopes: z.array(z.string().min(1)).default(['openid', 'email', 'profile']),
  mapping: roleMappingSchema.default({ domains: {}, defaultRole: 'viewer' }),
  /** How long a console session lasts, in milliseconds; default 12 hours. */
  sessionTtlMs: z.number().int().positive().optional(),
  /**
   * Talk to an `http:` issuer. Default: only when the issuer is on loopback (a provider on the
   * developer's machine or in a test); never do it across a network.
   */
  allowHttpIssuer: z.boolean().optional(),
});
export type OidcSignInOptions = z.input<typeof oidcSignInOptionsSchema>;
export type ResolvedOidcSignInOptions = z.output<typeof oidcSignInOptionsSchema>;
