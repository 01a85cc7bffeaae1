import type { Options } from 'tsup';
import { packageBuild } from '../../tsup.base.js';

// `splitting` for the CommonJS build too (esbuild splits ESM only by default): the entries share
// their code through common chunks, so `@agent-platform/core` and `@agent-platform/core/adapter-kit`
// (and `/schemas`) hand out one `PlatformError` class — an error an adapter-kit helper throws is
// `instanceof PlatformError` (and `isPlatformError`) for the engine that catches it.
export default { ...(packageBuild(['index', 'adapter-kit', 'schemas', 'signatures/registry']) as Options), splitting: true } satisfies Options;
