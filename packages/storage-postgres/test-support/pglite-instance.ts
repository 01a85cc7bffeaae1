/** One migrated in-memory PGlite instance for a test file: `usePGlite` from the testing package, with this package's migrations. */
import { usePGlite } from '@agent-platform/testing/pglite';
import { migrate } from '../src/index.js';

/** Registers the hooks; the function it returns gives the instance inside tests and hooks. */
export const useMigratedPGlite = () => usePGlite({ setup: (db) => migrate({ db }) });
