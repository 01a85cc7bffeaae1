/**
 * The `StorageAdapter` conformance suite.
 * @module
 */
import { describe } from 'vitest';
import { describeApiKeys } from './api-keys.js';
import { describeAudit } from './audit.js';
import { describeAutomations } from './automations.js';
import { describeBudgets } from './budgets.js';
import { useAdapter } from './context.js';
import type { StorageAdapterFactory, TestStorageAdapterOptions } from './context.js';
import { describeConversations } from './conversations.js';
import { describeCopies } from './copies.js';
import { describeDeliveries } from './deliveries.js';
import { describeGithubLinks } from './github-links.js';
import { describeHostileValues } from './hostile-values.js';
import { describeLifecycle } from './lifecycle.js';
import { describeOutboundMessages } from './outbound-messages.js';
import { describeProviderTokens } from './provider-tokens.js';
import { describeRuns } from './runs.js';
import { describeRunsByOrg } from './runs-by-org.js';
import { describeRunsOverview } from './runs-overview.js';
import { describeQueueSummary } from './queue-summary.js';
import { describeRunReports } from './run-reports.js';
import { describeRunTransitions } from './run-transitions.js';
import { describeSandboxes } from './sandboxes.js';
import { describeSettings } from './settings.js';
import { describeConsoleSessions, describeMemberships } from './sign-in.js';
import { describeSpend } from './spend.js';
import { describeStartTasks } from './start-tasks.js';
import { describeSubscriptions } from './subscriptions.js';
import { describeThreads } from './threads.js';
import { describeTransactions } from './transactions.js';
import { describeWebhooks } from './webhooks.js';

export type { StorageAdapterFactory, TestStorageAdapterOptions } from './context.js';

/**
 * Registers the conformance suite for a `StorageAdapter` with vitest. Call it at the top level
 * of a test file. Each test gets a fresh adapter from `factory` and closes it afterwards; tests
 * use fresh ids, so the factory may hand out adapters over one shared backend.
 *
 * @param name - Shown in the suite's title.
 * @param factory - Builds the adapter under test.
 * @param options - Concurrency and timeouts for slow backends.
 *
 * @example
 * ```ts
 * // packages/storage-memory/src/memory-storage.test.ts
 * import { testStorageAdapter } from '@agent-platform/testing';
 * import { createMemoryStorage } from './index.js';
 *
 * testStorageAdapter('memory', () => createMemoryStorage());
 *
 * // A networked backend: fewer concurrent transactions, more time per test.
 * testStorageAdapter('postgres', () => createPostgresStorage({ url: DATABASE_URL }), {
 *   concurrency: 8,
 *   timeout: 20_000,
 * });
 * ```
 */
export function testStorageAdapter(name: string, factory: StorageAdapterFactory, options: TestStorageAdapterOptions = {}): void {
  const suiteOptions = options.timeout === undefined ? {} : { timeout: options.timeout };
  describe(`StorageAdapter conformance: ${name}`, suiteOptions, () => {
    const ctx = useAdapter(factory, options);
    describeLifecycle(ctx);
    describeSettings(ctx);
    describeProviderTokens(ctx);
    describeApiKeys(ctx);
    describeWebhooks(ctx);
    describeAutomations(ctx);
    describeRuns(ctx);
    describeRunsByOrg(ctx);
    describeRunsOverview(ctx);
    describeQueueSummary(ctx);
    describeRunReports(ctx);
    describeThreads(ctx);
    describeAudit(ctx);
    describeMemberships(ctx);
    describeConsoleSessions(ctx);
    describeSpend(ctx);
    describeBudgets(ctx);
    describeRunTransitions(ctx);
    describeDeliveries(ctx);
    describeGithubLinks(ctx);
    describeSandboxes(ctx);
    describeConversations(ctx);
    describeStartTasks(ctx);
    describeSubscriptions(ctx);
    describeOutboundMessages(ctx);
    describeTransactions(ctx);
    describeCopies(ctx);
    describeHostileValues(ctx);
  });
}
