/**
 * Loads `openid-client`, which is ESM only, from either of this package's builds, and only when
 * sign-in is first used (a handler without OpenID Connect never loads it). The ESM build and the
 * sources import it. The CommonJS build's bundler turns that `import()` into a `require()`, which
 * loads an ES module only from Node 20.19 on; where it fails, the package's file is resolved and
 * imported by URL through a function the bundler does not rewrite, so every Node 20 works.
 * @module
 */
import { pathToFileURL } from 'node:url';

export type OpenIdClientModule = typeof import('openid-client');

/** A variable, not a literal: the CommonJS build holds no literal `require()` of an ES-only package. */
const OPENID_CLIENT = 'openid-client';

// A real `import()` the CommonJS bundler cannot rewrite; it only ever gets the file URL of `openid-client`.
const importUrl = new Function('url', 'return import(url)') as (url: string) => Promise<OpenIdClientModule>;

let loaded: Promise<OpenIdClientModule> | undefined;

export function loadOpenIdClient(): Promise<OpenIdClientModule> {
  loaded ??= load().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

async function load(): Promise<OpenIdClientModule> {
  try {
    return (await import(OPENID_CLIENT)) as OpenIdClientModule;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_REQUIRE_ESM' || typeof require !== 'function') throw error;
    return importUrl(pathToFileURL(require.resolve(OPENID_CLIENT)).href);
  }
}
