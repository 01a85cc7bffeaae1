/**
 * The client SDK bundled for browsers with esbuild (`platform: 'browser'`), from its sources: what
 * a web app's bundler would produce. esbuild refuses a Node built-in on this platform, so a
 * bundle that builds is a bundle without one.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface BrowserBundle {
  code: string;
  /**
   * Every source file with code in the bundle, relative to the repository root: not those esbuild
   * only read to resolve a re-export and then left out (core has no side effects, so importing a
   * zod-free list from `@agent-platform/core/schemas` brings that list's file alone).
   */
  inputs: string[];
  bytes: number;
}

/** Bundles a source entry (default the client's) as a browser app's bundler would. */
export async function bundleClientForBrowser(options: { minify?: boolean; entry?: string } = {}): Promise<BrowserBundle> {
  const result = await build({
    entryPoints: [path.join(root, options.entry ?? 'packages/client/src/index.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    conditions: ['agent-platform-source'],
    minify: options.minify ?? true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: root,
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild wrote no bundle');
  const inBundle = Object.values(result.metafile.outputs).flatMap((meta) =>
    Object.entries(meta.inputs).flatMap(([input, { bytesInOutput }]) => (bytesInOutput > 0 ? [input] : [])),
  );
  return { code: output.text, inputs: inBundle, bytes: output.contents.byteLength };
}
