/**
 * The client SDK in a real browser: headless Chromium (Debian's package, driven by
 * playwright-core) loads the client bundled for browsers and, from a page on the reference
 * server's origin, registers a webhook, creates an automation, signs an event with Web Crypto,
 * follows the run to COMPLETED (and reads it again with `client.request`), and handles a 404 and
 * a 422 as typed errors.
 *
 * CI (`.ci/run` installs Chromium with scripts/browser-setup.sh) must run this, not skip it.
 */
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleClientForBrowser } from '../support/client-browser-bundle.js';
import { startServer, stopServer, type RunningServer } from './support/reference-server.js';

const KEY = 'e2e-browser-key-0123456789abcdef';

interface PageResult {
  nodeGlobals: string;
  matched: number;
  automationId: string;
  run: { status: string; automation_id: string };
  /** The same run read with `client.request`, by the endpoint's key. */
  runByKey: { status: string; id: string };
  said: string;
  notFound: { is: boolean; status: number; code: string };
  invalid: { is: boolean; code: string; loc: unknown };
}

/**
 * What the page runs, as plain browser JavaScript: a string, so vitest's transform (which rewrites
 * `import()`) never touches it.
 */
const pageScript = (key: string) => `(async () => {
  const sdk = await import('/__browser/client.js');
  const client = sdk.createClient({ baseUrl: location.origin, apiKey: ${JSON.stringify(key)} });
  const webhook = await client.webhooks.register({ name: 'Browser', source: 'browser-src', signature_scheme: 'standard-webhooks' });
  const automation = await client.automations.create({ name: 'from the browser', trigger: { type: 'event', source: 'browser-src', on: 'ping' }, instructions: 'Say hello' });
  const sent = await client.events.send({ org_id: webhook.org_id, source: 'browser-src', scheme: 'standard-webhooks', secret: webhook.webhook_secret, payload: { type: 'ping', text: 'héllo ✓' } });
  const run = await client.automations.waitForRun(sent.runs_created[0], { timeoutMs: 30000 });
  const events = await sdk.collect(client.conversations.iterateEvents(run.conversation_id));
  const runByKey = await client.request('GET /api/automation/v1/runs/{run_id}', { params: { run_id: run.id } });
  const notFound = await client.automations.get('auto_missing').catch((error) => error);
  const invalid = await client.automations.create({ name: '', trigger: { type: 'event', source: 'browser-src', on: 'ping' }, instructions: 'x' }).catch((error) => error);
  return {
    nodeGlobals: typeof globalThis.process,
    matched: sent.matched,
    automationId: automation.id,
    run: { status: run.status, automation_id: run.automation_id },
    runByKey: { status: runByKey.status, id: runByKey.id === run.id ? 'same' : runByKey.id },
    said: events.map((event) => event.message).join('\\n'),
    notFound: { is: sdk.isAgentPlatformError(notFound), status: notFound.status, code: notFound.code },
    invalid: { is: sdk.isAgentPlatformError(invalid), code: invalid.code, loc: invalid.issues[0] && invalid.issues[0].loc },
  };
})()`;

if (!chromiumAvailable()) describe('the client in Chromium', () => it.skip('no Chromium here (scripts/browser-setup.sh installs it)', () => {}));
else
  describe('the client in Chromium', () => {
    let server: RunningServer;
    let browser: Browser;

    beforeAll(async () => {
      server = await startServer('examples/server', { AGENT_PLATFORM_SANDBOX: 'process', AGENT_PLATFORM_API_KEYS: `alice@acme:${KEY}` });
      browser = await launchChromium();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      if (server) expect(await stopServer(server)).toBe(0);
    }, 60_000);

    it('runs the whole flow from a page, with typed errors', async () => {
      const bundle = await bundleClientForBrowser();
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(String(error)));
      // The page and the bundle are served at the server's own origin, as a host app serving its UI
      // beside the API would; everything else goes to the real server.
      await page.route(`${server.baseUrl}/__browser/**`, (route) => {
        const url = new URL(route.request().url());
        if (url.pathname.endsWith('/client.js')) return route.fulfill({ status: 200, contentType: 'text/javascript', body: bundle.code });
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>client</title>' });
      });
      await page.goto(`${server.baseUrl}/__browser/index.html`);

      const result = (await page.evaluate(pageScript(KEY))) as PageResult;

      expect(pageErrors).toEqual([]);
      expect(result.nodeGlobals).toBe('undefined');
      expect(result.matched).toBe(1);
      expect(result.run).toEqual({ status: 'COMPLETED', automation_id: result.automationId });
      expect(result.runByKey).toEqual({ status: 'COMPLETED', id: 'same' });
      expect(result.said).toContain('Say hello');
      expect(result.notFound).toEqual({ is: true, status: 404, code: 'NOT_FOUND' });
      expect(result.invalid).toEqual({ is: true, code: 'VALIDATION_FAILED', loc: ['body', 'name'] });
    }, 60_000);
  });
