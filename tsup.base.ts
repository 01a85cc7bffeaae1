import { defineConfig } from 'tsup';

/**
 * The build every package shares: ESM + CJS + declarations for Node 20, one file per entry.
 * `shims` gives the CommonJS build `import.meta.url` (for a package whose code reads it).
 */
export const packageBuild = (entries: string[], options: { shims?: boolean } = {}) =>
  defineConfig({
    ...options,
    entry: entries.map((entry) => `src/${entry}.ts`),
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
  });
