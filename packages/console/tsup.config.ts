import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defineConfig } from 'tsup';
import { buildConsoleAssets } from './src/build.js';
import { ASSETS_DIR, GZIP_SUFFIX, MANIFEST, type ManifestEntry } from './src/dist-layout.js';

/**
 * `dist/index.js` is `src/prebuilt.ts` (it reads prebuilt files), not `src/index.ts` (which builds
 * them on first use, for the workspace's source runs). The files are built once here, into
 * `dist/console/` with a manifest of their content types and ETags.
 */
export default defineConfig({
  // As tsup.base.ts's packageBuild, but for the entry's name.
  entry: { index: 'src/prebuilt.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  // `import.meta.url` in the CommonJS build, to find dist/console/.
  shims: true,
  async onSuccess() {
    const packageDir = path.resolve('.');
    const dir = path.join(packageDir, 'dist', ASSETS_DIR);
    const assets = await buildConsoleAssets(packageDir);
    await mkdir(dir, { recursive: true });
    const manifest: Record<string, ManifestEntry> = {};
    for (const [name, { body, gzip, ...entry }] of assets) {
      await writeFile(path.join(dir, name), body);
      if (gzip) await writeFile(path.join(dir, name + GZIP_SUFFIX), gzip);
      manifest[name] = { ...entry, gzip: gzip !== null };
    }
    await writeFile(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  },
});
