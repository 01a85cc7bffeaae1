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
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'examples/*/src/**/*.test.ts'],
          environment: 'node',
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
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
