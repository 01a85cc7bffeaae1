/**
 * A real OpenID provider (panva's `oidc-provider`) on loopback, for tests of console sign-in:
 * one confidential client, accounts the test defines (any password signs in), and its
 * development login and consent pages — the ones a browser test clicks through, and that
 * {@link signInAtProvider} fills in over plain HTTP.
 * @module
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** What an account's ID token and userinfo may say; `sub` is its login. */
export interface TestAccountClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
  /** Sent with the `org` scope: the org and role claims a mapping may read. */
  org?: string;
  role?: string | string[];
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by login; add more while the provider runs. */
  accounts: Map<string, TestAccountClaims>;
  close(): Promise<void>;
}

export async function startOidcProvider(options: { redirectUris: string[]; accounts?: Record<string, TestAccountClaims> }): Promise<TestOidcProvider> {
  const accounts = new Map(Object.entries(options.accounts ?? {}));
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'agent-platform-console';
  const clientSecret = 'a-test-client-secret-that-is-long-enough';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], org: ['org', 'role'] },
    async findAccount(_ctx, id) {
      const claims = accounts.get(id);
      if (!claims) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
    },
    cookies: { keys: ['test-only-cookie-signing-key'] },
    features: { devInteractions: { enabled: true } },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Signs `login` in at the provider the way a browser would — following its redirects with its
 * cookies, submitting the login form and then the consent form — starting from the
 * authorization URL, and answers the URL the provider finally sends the browser to (the
 * platform's callback, with `code` and `state`).
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const remember = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  let url = new URL(authorizationUrl);
  const origin = url.origin;
  let form: URLSearchParams | null = null;
  for (let step = 0; step < 20; step += 1) {
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: cookieHeader(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: form.toString() } : {}),
    });
    remember(response);
    form = null;
    const location = response.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.origin !== origin) return next;
      url = next;
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`the provider answered ${response.status} with no form to fill in: ${html.slice(0, 300)}`);
    url = new URL(action, url);
    form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt });
  }
  throw new Error('the provider never sent the browser back');
}
