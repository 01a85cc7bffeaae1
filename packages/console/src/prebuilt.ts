/**
 * `@agent-platform/console` as published (built to `dist/index.js`): the console's files, which
 * the package build wrote to `dist/console/` (see `tsup.config.ts`), read on first use. The same
 * exports as the source entry, `src/index.ts`.
 * @module
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConsoleAsset, ConsoleAssets } from './assets.js';
import { ASSETS_DIR, GZIP_SUFFIX, MANIFEST, type ManifestEntry } from './dist-layout.js';

export { CONSOLE_PAGE, consolePage, contentTypeOf, type ConsoleAsset, type ConsoleAssets } from './assets.js';

let assets: Promise<ConsoleAssets> | undefined;

/**
 * The console's files by path, read once per process on the first call.
 * @example
 * ```ts
 * const assets = await loadConsoleAssets();
 * const page = consolePage(assets, './'); // index.html, for /console/
 * ```
 */
export function loadConsoleAssets(): Promise<ConsoleAssets> {
  assets ??= readAssets(path.join(path.dirname(fileURLToPath(import.meta.url)), ASSETS_DIR));
  return assets;
}

async function readAssets(dir: string): Promise<ConsoleAssets> {
  const manifest = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as Record<string, ManifestEntry>;
  const entries = await Promise.all(
    Object.entries(manifest).map(async ([name, entry]): Promise<[string, ConsoleAsset]> => {
      const body = new Uint8Array(await readFile(path.join(dir, name)));
      const gzip = entry.gzip ? new Uint8Array(await readFile(path.join(dir, name + GZIP_SUFFIX))) : null;
      return [name, { ...entry, body, gzip }];
    }),
  );
  return new Map(entries);
}
