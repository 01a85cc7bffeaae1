/**
 * The web console's files at `/console`, on every binding and through the fetch handler: the
 * page for every app route (its `<base href>` pointing back to the console's root), hashed files
 * cached for good, gzip, ETags, HEAD, 404 for a file the console does not have, 405 for other
 * methods; outside the API's route table and OpenAPI document; and off with `console: false`.
 */
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, type AgentPlatform } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseHref, CONSOLE_CONTENT_SECURITY_POLICY } from './console/console-routes.js';
import { agentPlatformPlugin } from './fastify.js';
import { createFetchHandler } from './fetch.js';
import { createHttpHandler } from './handler.js';
import { ALL_BINDINGS, startHarness, type Harness } from '../test-support/harness.js';

const platform = (): AgentPlatform =>
  createAgentPlatform({ storage: createMemoryStorage(), secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }), publicUrl: 'http://localhost' });

/** The files the page loads: its script and stylesheet. */
function pageFiles(html: string): { script: string; stylesheet: string } {
  const script = /<script type="module" src="([^"]+)"><\/script>/.exec(html)?.[1];
  const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1];
  if (!script || !stylesheet) throw new Error(`no script or stylesheet in the page:\n${html}`);
  return { script, stylesheet };
}

const baseOf = (html: string) => /<base href="([^"]*)">/.exec(html)?.[1];

describe('the page’s base, back to the console’s root', () => {
  it.each([
    ['/console', 'console/'],
    ['/console/', './'],
    ['/console/deliveries', './'],
    ['/console/runs/run_1', '../'],
    ['/console/runs/run_1/', '../../'],
    ['/console/automations/a_1/runs', '../../'],
  ])('%s → %s', (path, base) => expect(baseHref(path)).toBe(base));
});

describe.each(ALL_BINDINGS)('the console on %s', (binding) => {
  let api: Harness;
  let html: string;
  beforeAll(async () => {
    api = await startHarness(binding);
    html = (await api.request('GET', '/console/', { as: null })).text;
  }, 60_000);
  afterAll(() => api.close());

  it('answers the page at /console, with no credentials, a strict CSP and revalidation', async () => {
    const response = await api.request('GET', '/console', { as: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(baseOf(response.text)).toBe('console/');
    expect(response.text).not.toMatch(/https?:\/\//);
    expect(response.text).not.toMatch(/<script>|<style|style="/);
  });

  it('answers the page for any app route without a file extension (the app routes in the browser)', async () => {
    for (const [path, base] of [
      ['/console/', './'],
      ['/console/deliveries', './'],
      ['/console/runs/run_123', '../'],
      ['/console/no/such/page', '../../'],
      ['/console/index.html', './'],
    ] as const) {
      const response = await api.request('GET', path, { as: null });
      expect([path, response.status, response.headers.get('content-type')]).toEqual([path, 200, 'text/html; charset=utf-8']);
      expect([path, baseOf(response.text)]).toEqual([path, base]);
    }
  });

  it('serves the hashed files the page loads, cached for good', async () => {
    const { script, stylesheet } = pageFiles(html);
    expect(script).toMatch(/^app\.[A-Z0-9]+\.js$/);
    const js = await api.request('GET', `/console/${script}`, { as: null });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.text.length).toBeGreaterThan(10_000);
    const css = await api.request('GET', `/console/${stylesheet}`, { as: null });
    expect([css.status, css.headers.get('content-type')]).toEqual([200, 'text/css; charset=utf-8']);
    expect(css.text).toContain('--pico-');
  });

  it('sends gzip to a client that accepts it, with its own ETag', async () => {
    const { script } = pageFiles(html);
    const plain = await fetch(`${api.baseUrl}/console/${script}`, { headers: { 'accept-encoding': 'identity' } });
    const plainBytes = new Uint8Array(await plain.arrayBuffer());
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('content-length')).toBe(String(plainBytes.byteLength));
    expect(plain.headers.get('vary')).toBe('accept-encoding');
    // Read the raw bytes: fetch would decode them.
    const gzipped = await rawGet(`${api.baseUrl}/console/${script}`, { 'accept-encoding': 'gzip, deflate' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.body.byteLength).toBeLessThan(plainBytes.byteLength / 2);
    expect(new Uint8Array(gunzipSync(gzipped.body))).toEqual(plainBytes);
    expect(gzipped.headers.etag).not.toBe(plain.headers.get('etag'));
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const { script } = pageFiles(html);
    for (const path of ['/console/', `/console/${script}`]) {
      const first = await fetch(`${api.baseUrl}${path}`, { headers: { 'accept-encoding': 'identity' } });
      const etag = first.headers.get('etag')!;
      const again = await fetch(`${api.baseUrl}${path}`, { headers: { 'if-none-match': `W/${etag}`, 'accept-encoding': 'identity' } });
      expect([path, again.status, await again.text(), again.headers.get('etag')]).toEqual([path, 304, '', etag]);
    }
  });

  it('answers HEAD with the headers only', async () => {
    const { script } = pageFiles(html);
    const response = await fetch(`${api.baseUrl}/console/${script}`, { method: 'HEAD', headers: { 'accept-encoding': 'identity' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(Number(response.headers.get('content-length'))).toBeGreaterThan(10_000);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers 404 for a file it does not have, and 405 for other methods', async () => {
    for (const path of ['/console/missing.js', '/console/app.js', '/console/runs/x.png', '/console/manifest.json']) {
      const response = await api.request('GET', path, { as: null });
      expect([path, response.status, response.json]).toEqual([path, 404, { detail: 'Not Found' }]);
    }
    const posted = await api.request('POST', '/console/deliveries', { as: null, json: {} });
    expect([posted.status, posted.headers.get('allow'), posted.json]).toEqual([405, 'GET, HEAD', { detail: 'Method not allowed' }]);
  });

  it('leaves the API as it was', async () => {
    expect((await api.request('GET', '/health', { as: null })).status).toBe(200);
    expect((await api.request('GET', '/consoles', { as: null })).status).toBe(404);
    expect((await api.request('GET', '/api/automation/v1')).status).toBe(200);
  });
});

describe('the console through the fetch handler', () => {
  it('serves the page and the files', async () => {
    const handle = createFetchHandler(platform());
    const page = await handle(new Request('http://localhost/console/webhooks'));
    expect([page.status, page.headers.get('content-type'), page.headers.get('content-security-policy')]).toEqual([
      200,
      'text/html; charset=utf-8',
      CONSOLE_CONTENT_SECURITY_POLICY,
    ]);
    const { script } = pageFiles(await page.text());
    const js = await handle(new Request(`http://localhost/console/${script}`));
    expect([js.status, js.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    const head = await handle(new Request('http://localhost/console/', { method: 'HEAD' }));
    expect([head.status, head.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(100);
    expect((await handle(new Request('http://localhost/console/nope.css'))).status).toBe(404);
  });

  it('is off with console: false', async () => {
    const handle = createFetchHandler(platform(), { console: false });
    const response = await handle(new Request('http://localhost/console'));
    expect([response.status, await response.json()]).toEqual([404, { detail: 'Not Found' }]);
  });
});

describe('the console and the API’s own description', () => {
  it('is not a route: not in the route table or the OpenAPI document', () => {
    const handler = createHttpHandler(platform());
    expect(handler.routes.some((route) => route.path.startsWith('/console'))).toBe(false);
    const paths = Object.keys((handler.openApiDocument() as { paths: Record<string, unknown> }).paths);
    expect(paths.some((path) => path.startsWith('/console'))).toBe(false);
    expect(handler.assetPaths).toEqual(['/console', '/console/*']);
  });

  it('with console: false, the handler passes /console on and bindings register nothing for it', async () => {
    const handler = createHttpHandler(platform(), { console: false });
    expect(handler.assetPaths).toEqual([]);
    expect(await handler.handle({ method: 'GET', url: '/console', headers: {}, body: null })).toBeNull();
  });
});

describe('the console under a Fastify prefix', () => {
  let base: string;
  let offBase: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const app = Fastify();
    await app.register(agentPlatformPlugin, { platform: platform(), prefix: '/platform' });
    const off = Fastify();
    await off.register(agentPlatformPlugin, { platform: platform(), console: false });
    await Promise.all([app.listen({ port: 0, host: '127.0.0.1' }), off.listen({ port: 0, host: '127.0.0.1' })]);
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    offBase = `http://127.0.0.1:${(off.server.address() as AddressInfo).port}`;
    close = async () => {
      await Promise.all([app.close(), off.close()]);
    };
  });
  afterAll(() => close());

  it('serves it below the prefix, its files found from any depth', async () => {
    const page = await fetch(`${base}/platform/console/runs/run_1`);
    const html = await page.text();
    expect(page.status).toBe(200);
    const { script } = pageFiles(html);
    const scriptUrl = new URL(script, new URL(baseOf(html)!, `${base}/platform/console/runs/run_1`));
    expect(scriptUrl.pathname).toBe(`/platform/console/${script}`);
    expect((await fetch(scriptUrl)).status).toBe(200);
  });

  it('is a 404 with console: false', async () => {
    expect((await fetch(`${offBase}/console`)).status).toBe(404);
    expect((await fetch(`${offBase}/console/deliveries`)).status).toBe(404);
  });
});

/** A GET whose body is read as it came (fetch decodes gzip). */
async function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: Record<string, string | string[] | undefined>; body: Uint8Array }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers, body: new Uint8Array(Buffer.concat(chunks)) }));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
