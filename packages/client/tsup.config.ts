import { defineConfig } from 'tsup';

/**
 * ESM keeps ky as an import (deduplicated with the app's). The CJS build bundles ky, which is
 * ESM-only: `require()` of an ES module works only from Node 20.19, and `engines` says 20.
 *
 * `@agent-platform/core` is a dependency for the schemas' types and its signature registry (the
 * one run-time import). `@agent-platform/http` is a devDependency: the declarations tsup writes
 * import the route table (`ApiRoutes`) from it, and the build's next step,
 * `scripts/inline-route-table.mjs`, writes that table into dist/index.d.ts and index.d.cts in
 * place of the import, so an app that installs the client installs none of the server.
 */
// The two builds run at once, so neither cleans dist/ (the build script does, first).
const shared = { entry: ['src/index.ts'], sourcemap: true, target: 'node20', dts: true } as const;

export default defineConfig([
  { ...shared, format: ['esm'] },
  { ...shared, format: ['cjs'], noExternal: ['ky'] },
]);
