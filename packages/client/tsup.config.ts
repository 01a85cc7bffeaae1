import { defineConfig } from 'tsup';

/**
 * ESM keeps ky as an import (deduplicated with the app's). The CJS build bundles ky, which is
 * ESM-only: `require()` of an ES module works only from Node 20.19, and `engines` says 20.
 *
 * `@agent-platform/http` and `@agent-platform/core` are dependencies for their types only (the
 * route table, the schemas' types): the code imports nothing of them, and the declarations
 * import them, as dependencies, rather than inlining them (docs/decisions.md, "The client SDK").
 */
// The two builds run at once, so neither cleans dist/ (the build script does, first).
const shared = { entry: ['src/index.ts'], sourcemap: true, target: 'node20', dts: true } as const;

export default defineConfig([
  { ...shared, format: ['esm'] },
  { ...shared, format: ['cjs'], noExternal: ['ky'] },
]);
