/**
 * Loads `@octokit/rest`, which is ESM only, from either of core's builds. The ESM build (and the
 * sources under vitest) import it. The CommonJS build's bundler turns that `import()` into a
 * `require()`, which loads an ES module only from Node 20.19 on (require(esm)); where it fails,
 * the package's file is resolved and imported by URL through a function the bundler does not
 * rewrite — so core's CommonJS build works on every Node 20.
 * @module
 */
import { pathToFileURL } from 'node:url';

type OctokitModule = typeof import('@octokit/rest');

/** A variable, not a literal: the CommonJS build holds no literal `require()` of an ES-only package. */
const OCTOKIT = '@octokit/rest';

// A real `import()` the CommonJS bundler cannot rewrite into `require()`; it only ever gets the file URL of `@octokit/rest`.
const importUrl = new Function('url', 'return import(url)') as (url: string) => Promise<OctokitModule>;

export async function loadOctokit(): Promise<OctokitModule> {
  try {
    return (await import(OCTOKIT)) as OctokitModule;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_REQUIRE_ESM' || typeof require !== 'function') throw error;
    return importUrl(pathToFileURL(require.resolve(OCTOKIT)).href);
  }
}
