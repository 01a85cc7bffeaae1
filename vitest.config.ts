import { defineConfig } from 'vitest/config';

/**
 * Tests run against the TypeScript sources: the `agent-platform-source` export condition points
 * each workspace package at its `src/`, so no build is needed first. Three projects: `unit`
 * (beside the code), `e2e` (across packages and real services), `build` (built and packed packages).
 */
const sourceConditions = ['agent-platform-source', 'import', 'module', 'node', 'default'];
const resolve = { conditions: sourceConditions };
const ssr = { resolve: { conditions: sourceConditions, externalConditions: sourceConditions } };

export default defineConfig({
  test: {
    // Vitest's default on a 2-core machine is one worker: files ran one after another while most
    // of them wait on servers, sockets, Docker and timers. Four workers took the suite from about
    // 11 to about 5 minutes here (docs/benchmarks.md, "The test suite's time").
    maxWorkers: 4,
    minWorkers: 1,
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts'],
          environment: 'node',
          // Vitest's 5 s default is too tight for the unit tests that start a process (a server
          // under tsx, a sandbox host) while three other workers share two cores: CI saw 4.7 s.
          // A time limit catches hangs; speed is measured by the benchmarks, not here.
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        resolve,
        ssr,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve,
        ssr,
        test: {
          name: 'build',
          include: ['test/build/**/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          // Building every package (tsup with declarations) shares the machine with the other
          // projects' workers: it takes 2–4 minutes then.
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
