/**
 * The web console at `/console`: the files of `@agent-platform/console`, answered by
 * the shared handler (so the Fastify plugin, the Express router, the Node listener and the fetch
 * handler all serve it) before the route table is consulted. The console is not part of the API:
 * it is not in the route table, the OpenAPI document or the client's types, and needs no
 * credentials (the app asks for an API key and sends it to the API itself).
 *
 * Every path below `/console` without a file extension answers the app's page (the app routes
 * in the browser); a file the console does not have is a 404. Hashed files are cached for good,
 * the page is revalidated; a strict Content-Security-Policy lets the page load only its own files
 * and call only its own origin.
 * @module
 */
import { CONSOLE_PAGE, consolePage, loadConsoleAssets, type ConsoleAsset, type ConsoleAssets } from '@agent-platform/console';
import { jsonResponse } from '../exchange/error-response.js';
import type { HeaderValue, HttpResponse } from '../exchange/types.js';

export const CONSOLE_PATH = '/console';

/** The paths the console answers, in Fastify's syntax: for bindings that register paths one by one. */
export const CONSOLE_PATHS: readonly string[] = [CONSOLE_PATH, `${CONSOLE_PATH}/*`];

/**
 * Scripts, styles, fonts and connections from the console's own origin only: no inline script or
 * style, no other origin, no plugins, no framing. `data:` images are Pico's and Swagger UI's
 * inline SVG icons.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page may change with each release of the console: always revalidated (a 304 when unchanged). */
const REVALIDATE = 'no-cache';

/** Whether a path is the console's. */
export const isConsolePath = (path: string): boolean => path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`);

/** The answer to a request for a console path (see {@link isConsolePath}). Rejects only when the console's files cannot be loaded. */
export async function serveConsole(method: string, path: string, headers: Record<string, HeaderValue>): Promise<HttpResponse> {
  const verb = method.toUpperCase();
  if (verb !== 'GET' && verb !== 'HEAD') return jsonResponse(405, { detail: 'Method not allowed' }, { allow: 'GET, HEAD' });
  const asset = pick(await loadConsoleAssets(), path);
  if (!asset) return jsonResponse(404, { detail: 'Not Found' });
  const common: Record<string, string> = {
    etag: asset.etag,
    'cache-control': asset.immutable ? IMMUTABLE : REVALIDATE,
    'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
  };
  if (asset.gzip) common.vary = 'accept-encoding';
  const gzip = asset.gzip && acceptsGzip(headers['accept-encoding']) ? asset.gzip : null;
  // Each encoding is its own representation, with its own validator.
  const etag = gzip ? `${asset.etag.slice(0, -1)}-gzip"` : asset.etag;
  common.etag = etag;
  if (matches(headers['if-none-match'], etag)) return { status: 304, headers: common, body: null };
  const body = gzip ?? asset.body;
  // HEAD gets the body too, as every answer of the handler does: the servers send the headers
  // only (and Fastify takes the length from it).
  return {
    status: 200,
    headers: { ...common, 'content-type': asset.contentType, 'content-length': String(body.byteLength), ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    body,
  };
}

/** The file for a path: one the console has, else the page for a path without a file extension (an app route). */
function pick(assets: ConsoleAssets, path: string): ConsoleAsset | undefined {
  const below = path.slice(CONSOLE_PATH.length + 1);
  const file = below === CONSOLE_PAGE ? undefined : assets.get(below);
  if (file) return file;
  const name = below.slice(below.lastIndexOf('/') + 1);
  if (below !== CONSOLE_PAGE && name.includes('.')) return undefined;
  return consolePage(assets, baseHref(path));
}

/**
 * The page's `<base href>`: the way back to the console's root from the path it is served at,
 * relative, so the console works under whatever prefix the API is mounted at. `/console` →
 * `console/`, `/console/` and `/console/runs` → `./`, `/console/runs/run_1` → `../`.
 */
export function baseHref(path: string): string {
  if (path === CONSOLE_PATH) return 'console/';
  const depth = path.slice(CONSOLE_PATH.length + 1).split('/').length - 1;
  return depth === 0 ? './' : '../'.repeat(depth);
}

function acceptsGzip(value: HeaderValue): boolean {
  const header = Array.isArray(value) ? value.join(',') : (value ?? '');
  return header.split(',').some((part) => {
    const [coding, ...parameters] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const quality = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    return !quality || Number(quality.slice(2)) > 0;
  });
}

/** `If-None-Match` (a list, or `*`) against an ETag, weakly as RFC 9110 compares for it. */
function matches(value: HeaderValue, etag: string): boolean {
  const header = Array.isArray(value) ? value.join(',') : value;
  if (!header) return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag));
}
