/**
 * The conversation with the OpenID provider, through `openid-client`: discovery (once, at the
 * first sign-in, retried after a failure so a provider down at start-up does not stay broken),
 * the authorization URL with PKCE (S256), state and nonce, and the code exchange, which checks
 * the state, the ID token's signature, issuer, audience, expiry and nonce. Claims are the ID
 * token's, with the userinfo endpoint's added when the provider has one (many send email and
 * custom claims only there).
 * @module
 */
import type * as OpenId from 'openid-client';
import { loadOpenIdClient } from './load-openid-client.js';
import type { ResolvedOidcSignInOptions } from './oidc-options.js';

/** What a login keeps between the redirect out and the redirect back. */
export interface LoginChecks {
  state: string;
  nonce: string;
  verifier: string;
}

export interface OidcClient {
  /** The provider's authorization URL for a new login, and the checks to keep for its callback. */
  startLogin(): Promise<{ url: URL; checks: LoginChecks }>;
  /** Exchanges the callback's code and answers the user's claims (`sub` always among them). Throws openid-client's errors. */
  finishLogin(callbackUrl: URL, checks: LoginChecks): Promise<Record<string, unknown>>;
  readonly redirectUri: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function createOidcClient(options: ResolvedOidcSignInOptions): OidcClient {
  const redirectUri = `${options.publicUrl.replace(/\/+$/, '')}/auth/oidc/callback`;
  const issuer = new URL(options.issuer);
  const allowHttp = options.allowHttpIssuer ?? LOOPBACK.has(issuer.hostname);
  let configuration: Promise<OpenId.Configuration> | undefined;

  function discover(): Promise<OpenId.Configuration> {
    configuration ??= loadOpenIdClient()
      .then((oidc) =>
        oidc.discovery(
          issuer,
          options.clientId,
          undefined,
          options.clientSecret ? oidc.ClientSecretBasic(options.clientSecret) : oidc.None(),
          allowHttp ? { execute: [oidc.allowInsecureRequests] } : undefined,
        ),
      )
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
    return configuration;
  }

  return {
    redirectUri,
    async startLogin() {
      const config = await discover();
      const oidc = await loadOpenIdClient();
      const checks: LoginChecks = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier() };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: options.scopes.join(' '),
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
        code_challenge_method: 'S256',
        state: checks.state,
        nonce: checks.nonce,
      });
      return { url, checks };
    },
    async finishLogin(callbackUrl, checks) {
      const config = await discover();
      const oidc = await loadOpenIdClient();
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error('the provider sent no ID token');
      let userinfo: Record<string, unknown> = {};
      if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
        userinfo = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      }
      // The ID token's claims win: they are signed, userinfo's only come over TLS.
      return { ...userinfo, ...idClaims };
    },
  };
}
