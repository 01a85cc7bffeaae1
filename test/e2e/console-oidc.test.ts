/**
 * Console sign-in with OpenID Connect, end to end: a real provider (`oidc-provider`) on
 * loopback, the reference server configured by its `AGENT_PLATFORM_OIDC_*` variables, and the
 * console in headless Chromium. The browser clicks "Sign in with Test IdP", signs in on the
 * provider's own login and consent pages, and lands in the console in the org and role the
 * mapping gives (a viewer by email domain: read only; an admin by org and role claims). A forged
 * callback is a 400; a write without the CSRF token a 403; after sign-out the old cookie no
 * longer works; API keys work throughout.
 *
 * CI (`.ci/run` installs Chromium with scripts/browser-setup.sh) must run this, not skip it.
 */
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { createServer } from 'node:net';
import { createClient } from '@agent-platform/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider, type TestOidcProvider } from '../../packages/http/test-support/oidc-provider.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';

const WAIT = { timeout: 30_000 };
const ALICE = 'alice-key-0123456789abcdef';

/** A free loopback port: the provider must know the redirect URI, port included, before the server starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

if (!chromiumAvailable())
  describe('console sign-in with OpenID Connect in Chromium', () => it.skip('no Chromium here (scripts/browser-setup.sh installs it)', () => {}));
else {
  describe('console sign-in with OpenID Connect in Chromium', () => {
    let idp: TestOidcProvider;
    let server: RunningServer;
    let browser: Browser;
    let baseUrl: string;

    beforeAll(async () => {
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      idp = await startOidcProvider({
        redirectUris: [`${baseUrl}/auth/oidc/callback`],
        accounts: {
          vera: { email: 'vera@acme.test', email_verified: true, name: 'Vera Viewer' },
          ada: { email: 'ada@contractor.test', email_verified: true, name: 'Ada Admin', org: 'acme', role: 'admin' },
        },
      });
      server = await startServer('examples/server', {
        PORT: String(port),
        AGENT_PLATFORM_PUBLIC_URL: baseUrl,
        AGENT_PLATFORM_API_KEYS: `alice@acme:${ALICE}`,
        AGENT_PLATFORM_OIDC_ISSUER: idp.issuer,
        AGENT_PLATFORM_OIDC_CLIENT_ID: idp.clientId,
        AGENT_PLATFORM_OIDC_CLIENT_SECRET: idp.clientSecret,
        AGENT_PLATFORM_OIDC_PROVIDER_NAME: 'Test IdP',
        AGENT_PLATFORM_OIDC_SCOPES: 'openid email profile org',
        AGENT_PLATFORM_OIDC_ORG_CLAIM: 'org',
        AGENT_PLATFORM_OIDC_ROLE_CLAIM: 'role',
        AGENT_PLATFORM_OIDC_DOMAINS: 'acme.test=acme/viewer',
      });
      browser = await launchChromium();
    }, 90_000);

    afterAll(async () => {
      await browser?.close();
      if (server) await stopServer(server);
      await idp?.close();
    });

    /** Signs `login` in from the console's sign-in page through the provider's pages; answers the page, back in the console. */
    async function signInThroughProvider(login: string): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${baseUrl}/console/automations`);
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
      // The provider's development login page, then its consent page.
      await page.waitForURL((url) => url.origin === idp.issuer, WAIT);
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${baseUrl}/console/`, WAIT);
      return page;
    }

    it('lands a viewer (mapped by email domain) in the org, read only; a write without the CSRF token is a 403', async () => {
      const page = await signInThroughProvider('vera');
      await page.getByText('Signed in as oidc:vera (acme)', { exact: true }).waitFor(WAIT);
      await page.getByText('Role: viewer', { exact: true }).waitFor(WAIT);
      await page.getByText('Your key is a viewer: read only', { exact: true }).waitFor(WAIT);
      expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Automations', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Automations' }).waitFor(WAIT);
      expect(await page.getByRole('link', { name: 'New automation' }).count()).toBe(0);
      // The cookie is HttpOnly: no script reads it.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');
      const cookies = await page.context().cookies(baseUrl);
      expect(cookies.find((cookie) => cookie.name === 'agent_platform_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      // A same-origin write with the cookie but no token is refused, whatever the role.
      const status = await page.evaluate(
        async () => (await fetch('/api/keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' })).status,
      );
      expect(status).toBe(403);
      await page.context().close();
    });

    it('lands an admin (mapped by org and role claims) with the admin pages, and the cookie works for writes with the token', async () => {
      const page = await signInThroughProvider('ada');
      await page.getByText('Role: admin', { exact: true }).waitFor(WAIT);
      await page.getByRole('link', { name: 'Audit log' }).waitFor(WAIT);
      await page.getByRole('link', { name: 'Automations', exact: true }).click();
      await page.getByRole('link', { name: 'New automation' }).waitFor(WAIT);
      // The console's own client sends the token: a key made from the Settings page's API lands.
      const created = await page.evaluate(async () => {
        const session = (await (await fetch('/auth/session')).json()) as { session: { csrf_token: string } };
        const response = await fetch('/api/keys', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': session.session.csrf_token },
          body: '{"name":"from the console","role":"viewer"}',
        });
        return { status: response.status, body: (await response.json()) as { org_id: string } };
      });
      expect(created).toMatchObject({ status: 201, body: { org_id: 'acme' } });
      await page.context().close();
    });

    it('signs out: the console asks to sign in again, and the old cookie no longer works', async () => {
      const page = await signInThroughProvider('vera');
      await page.getByText('Role: viewer', { exact: true }).waitFor(WAIT);
      const cookie = (await page.context().cookies(baseUrl)).find((one) => one.name === 'agent_platform_session');
      expect(cookie).toBeDefined();
      const header = `${cookie?.name}=${cookie?.value}`;
      expect((await fetch(`${baseUrl}/api/automation/v1`, { headers: { cookie: header } })).status).toBe(200);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor(WAIT);
      expect((await fetch(`${baseUrl}/api/automation/v1`, { headers: { cookie: header } })).status).toBe(401);
      // Reloading does not sign back in.
      await page.reload();
      await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor(WAIT);
      await page.context().close();
    });

    it('refuses a forged callback with a 400 page saying why', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const response = await page.goto(`${baseUrl}/auth/oidc/callback?code=forged&state=forged`);
      expect(response?.status()).toBe(400);
      await page.getByText(/No sign-in was started in this browser/).waitFor(WAIT);
      await context.close();
    });

    it('keeps API keys working beside sign-in, and logs no secret', async () => {
      const alice = createClient({ baseUrl, apiKey: ALICE });
      expect((await alice.apiKeys.current()).org_id).toBe('acme');
      await expect(alice.automations.list({ limit: 5 })).resolves.toBeDefined();
      const logs = server.output.join('');
      expect(logs).not.toContain(idp.clientSecret);
      expect(logs).not.toMatch(/agent_platform_session=[\w-]{20}/);
    });
  });
}
