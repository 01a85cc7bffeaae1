/**
 * The repositories over one `Sql`: the adapter's own (each statement committed alone) or a
 * transaction's.
 * @module
 */
import type { StorageRepositories } from '@agent-platform/core';
import type { Sql } from '../sql/sql.js';
import { apiKeysRepository } from './api-keys.js';
import { auditRepository, type Atomically } from './audit.js';
import { budgetsRepository, spendRepository } from './spend.js';
import { automationsRepository } from './automations.js';
import { conversationsRepository } from './conversations.js';
import { deliveriesRepository, type ClaimHooks, type DeliveryBatcher } from './deliveries.js';
import { githubLinksRepository } from './github-links.js';
import { outboundMessagesRepository } from './outbound-messages.js';
import { runReportsRepository } from './run-reports.js';
import { runsRepository } from './runs.js';
import { sandboxesRepository } from './sandboxes.js';
import { consoleSessionsRepository, membershipsRepository } from './sign-in.js';
import { startTasksRepository } from './start-tasks.js';
import { subscriptionsRepository } from './subscriptions.js';
import { threadsRepository } from './threads.js';
import { providerTokensRepository, settingsRepository } from './user-records.js';
import { webhooksRepository } from './webhooks.js';

export type { Atomically } from './audit.js';
export type { ClaimHooks, DeliveryBatcher } from './deliveries.js';
export { deliveryBatcher, PRUNE_EXPIRED_CLAIMS } from './deliveries.js';

/**
 * `batcher`: the group commit of the adapter's own deliveries (none inside a transaction).
 * `atomically`: how a write that must read and write in one transaction gets one — for the
 * adapter's own repositories a transaction of its own; by default `sql` itself, which is right
 * only when `sql` is a transaction's.
 */
export function createRepositories(sql: Sql, hooks: ClaimHooks, batcher?: DeliveryBatcher, atomically: Atomically = (fn) => fn(sql)): StorageRepositories {
  return {
    settings: settingsRepository(sql),
    providerTokens: providerTokensRepository(sql),
    apiKeys: apiKeysRepository(sql),
    webhooks: webhooksRepository(sql),
    automations: automationsRepository(sql),
    runs: runsRepository(sql),
    deliveries: deliveriesRepository(sql, hooks, batcher),
    githubLinks: githubLinksRepository(sql),
    sandboxes: sandboxesRepository(sql),
    conversations: conversationsRepository(sql),
    runReports: runReportsRepository(sql),
    threads: threadsRepository(sql),
    audit: auditRepository(sql, atomically),
    spend: spendRepository(sql),
    budgets: budgetsRepository(sql),
    startTasks: startTasksRepository(sql),
    subscriptions: subscriptionsRepository(sql),
    outboundMessages: outboundMessagesRepository(sql),
    memberships: membershipsRepository(sql),
    consoleSessions: consoleSessionsRepository(sql),
  };
}
