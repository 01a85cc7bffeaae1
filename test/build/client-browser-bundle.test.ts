/**
 * The client SDK bundles for browsers: no Node built-in on its run-time path, and none of the
 * engine or the server (core and http are types-only dependencies: the client's types are
 * http's route table). The size is printed for docs/client.md. `exports.test.ts` bundles the
 * built dist/ the same way.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bundleClientForBrowser } from '../support/client-browser-bundle.js';

/** The signature registry and the pure pieces its scheme files use (no node:crypto among them). */
const SIGNATURE_REGISTRY = /^packages\/core\/src\/signatures\/(schemes\/[a-z0-9-]+|registry|scheme-kit\/[a-z0-9-]+)\.ts$/;
/** Core's lists of names (statuses, event types...), plain values the client re-exports. */
const VOCABULARY = 'packages/core/src/schemas/vocabulary.ts';

describe('@agent-platform/client in a browser bundle', () => {
  it('builds for platform "browser" from the client and ky alone', async () => {
    const bundle = await bundleClientForBrowser();
    expect(bundle.inputs.filter((input) => input.startsWith('node:'))).toEqual([]);
    // Only the client's own sources, ky, core's signature registry (the pure scheme files the
    // signer follows) and its lists of names: no other core, no http (and so no zod, no JMESPath,
    // no ws, no node:crypto).
    const foreign = bundle.inputs.filter(
      (input) =>
        !input.startsWith('packages/client/src/') &&
        !SIGNATURE_REGISTRY.test(input) &&
        input !== VOCABULARY &&
        !/node_modules\/(\.pnpm\/ky@[^/]+\/node_modules\/)?ky\//.test(input),
    );
    expect(foreign).toEqual([]);
    expect(bundle.inputs.some((input) => input.startsWith('packages/client/src/namespaces/'))).toBe(true);
    console.log(`client browser bundle: ${bundle.bytes} bytes minified, ${gzipSync(bundle.code).length} gzipped, ${bundle.inputs.length} inputs`);
  });

  it('@agent-platform/core/schemas bundles for browsers too (for apps that validate with the schemas)', async () => {
    const bundle = await bundleClientForBrowser({ entry: 'packages/core/src/schemas.ts' });
    expect(bundle.inputs.filter((input) => input.startsWith('node:'))).toEqual([]);
    expect(
      bundle.inputs.filter(
        (input) =>
          input.startsWith('packages/core/src/') &&
          !/^packages\/core\/src\/(schemas|expressions)\/|^packages\/core\/src\/(schemas|kernel\/errors)\.ts$/.test(input) &&
          !SIGNATURE_REGISTRY.test(input),
      ),
    ).toEqual([]);
  });
});
