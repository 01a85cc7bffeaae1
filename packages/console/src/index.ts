/**
 * `@agent-platform/console`: the web console's files, for the HTTP adapters to serve at
 * `/console` (`@agent-platform/http` does, unless its `console` option is `false`).
 *
 * This entry is the package run from its sources (the `agent-platform-source` export condition:
 * tests, the reference server): the files are built with esbuild on first use. The published
 * entry (`src/prebuilt.ts`, built to `dist/index.js`) reads the files the package build wrote.
 * @module
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConsoleAssets } from './assets.js';

export { CONSOLE_PAGE, consolePage, contentTypeOf, type ConsoleAsset, type ConsoleAssets } from './assets.js';

let assets: Promise<ConsoleAssets> | undefined;

/**
 * The console's files by path. Built once per process, on the first call (a second or so).
 * @example
 * ```ts
 * const assets = await loadConsoleAssets();
 * const page = consolePage(assets, './'); // index.html, for /console/
 * ```
 */
export function loadConsoleAssets(): Promise<ConsoleAssets> {
  assets ??= import('./build.js').then(({ buildConsoleAssets }) => buildConsoleAssets(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')));
  return assets;
}
