/**
 * The `RunQueue` and `ChangeFeed` conformance suites: what executors in several processes rely on
 * from the storage they share.
 * @module
 */
import { describe } from 'vitest';
import { describeChangeFeed } from './change-feed.js';
import { useSharedBackend, type SharedBackendFactory, type TestRunQueueOptions } from './context.js';
import { describeOverviewTimes } from './overview-times.js';
import { describeRunQueue } from './queue.js';

export type { SharedBackend, SharedBackendFactory, TestRunQueueOptions } from './context.js';

/**
 * Registers the conformance suites of a storage adapter's `runQueue` and `changes` with vitest.
 * Call it at the top level of a test file. Each test gets a backend of its own from `factory`,
 * with an empty runs table, and opens one or more adapters over it as separate processes would.
 *
 * @example
 * ```ts
 * testRunQueue('memory', async () => {
 *   const storage = createMemoryStorage();
 *   return { open: async () => storage, close: () => storage.close() };
 * });
 * ```
 */
export function testRunQueue(name: string, factory: SharedBackendFactory, options: TestRunQueueOptions = {}): void {
  const suiteOptions = options.timeout === undefined ? {} : { timeout: options.timeout };
  describe(`RunQueue and ChangeFeed conformance: ${name}`, suiteOptions, () => {
    const ctx = useSharedBackend(factory, options);
    describeRunQueue(ctx);
    describeChangeFeed(ctx);
    describeOverviewTimes(ctx);
  });
}
