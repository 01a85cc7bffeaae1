/**
 * The console's files as the HTTP layer serves them: a map from path (relative to `/console/`)
 * to body and headers. What the source build and the prebuilt `dist/` both answer.
 * @module
 */

/** One file of the console. */
export interface ConsoleAsset {
  /** The `content-type` to send, charset included for text. */
  readonly contentType: string;
  readonly body: Uint8Array;
  /** A strong `ETag`, quotes included. */
  readonly etag: string;
  /**
   * Whether the name carries a hash of the content (`app.3KX7QF2A.js`): such a file never
   * changes under its name and may be cached for good. `index.html` is the one that is not.
   */
  readonly immutable: boolean;
  /** The body gzipped, for clients that accept it; `null` for a file too small to gain from it. */
  readonly gzip: Uint8Array | null;
}

/** Every file of the console by path relative to the console's root: `index.html`, `app.<hash>.js`, ... */
export type ConsoleAssets = ReadonlyMap<string, ConsoleAsset>;

/** The page every console URL answers with (the app routes in the browser). */
export const CONSOLE_PAGE = 'index.html';

/** What the page's `<base href>` holds in the stored `index.html`; {@link consolePage} replaces it. */
const BASE_TAG = '<base href="./">';

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  map: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
};

/** The content type of a console file, by its extension. */
export function contentTypeOf(file: string): string {
  const extension = file.slice(file.lastIndexOf('.') + 1).toLowerCase();
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}

/**
 * The console's page with its `<base href>` set to `baseHref`: the path back to the console's
 * root from the URL the page is served at (`./` at `/console/`, `console/` at `/console`,
 * `../` at `/console/runs/run_1`). Relative, so the console works wherever the API is mounted
 * (under a Fastify prefix or an Express path) without knowing where.
 */
export function consolePage(assets: ConsoleAssets, baseHref: string): ConsoleAsset {
  const page = assets.get(CONSOLE_PAGE);
  if (!page) throw new Error('The console has no index.html');
  if (!/^(\.\/|(\.\.\/)+|console\/)$/.test(baseHref)) throw new Error(`Not a console base: ${baseHref}`);
  if (baseHref === './') return page;
  const html = new TextDecoder().decode(page.body).replace(BASE_TAG, `<base href="${baseHref}">`);
  const variant = baseHref === 'console/' ? 'c' : `u${baseHref.length / 3}`;
  return { ...page, body: new TextEncoder().encode(html), etag: `${page.etag.slice(0, -1)}-${variant}"`, gzip: null };
}
