import { defineConfig } from 'tsup';

/** The build every package shares: ESM + CJS + declarations for Node 20, one file per entry. */
export const packageBuild = (entries: string[]) =>
  defineConfig({
    entry: entries.map((entry) => `src/${entry}.ts`),
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
  });
