/**
 * The run queue and change feed conformance suites against PGlite: one in-memory instance for the
 * file (creating one takes seconds), its runs table emptied before each test; every `open` is a
 * new adapter over that instance, as the adapters of one process would share it.
 */
import type { StorageAdapter } from '@agent-platform/core';
import { testRunQueue } from '@agent-platform/testing';
import { createPGliteStorage } from './index.js';
import { useMigratedPGlite } from '../test-support/pglite-instance.js';

const db = useMigratedPGlite();

testRunQueue(
  'pglite',
  async () => {
    // With their reports, which refer to them.
    await db().query('TRUNCATE agent_platform.runs CASCADE');
    const opened: StorageAdapter[] = [];
    return {
      async open() {
        const storage = await createPGliteStorage({ db: db(), migrate: false });
        opened.push(storage);
        return storage;
      },
      async close() {
        await Promise.all(opened.map((storage) => storage.close()));
      },
    };
  },
  { timeout: 30_000 },
);
