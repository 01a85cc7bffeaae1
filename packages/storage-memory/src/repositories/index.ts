/**
 * The repositories over one memory database, as one {@link Access} sees it: the adapter's own
 * (each write taking the store's lock, reads seeing committed state) or a transaction's.
 * @module
 */
import type { StorageRepositories } from '@agent-platform/core';
import type { Access } from '../database/access.js';
import type { Database } from '../database/database.js';
import { apiKeysRepository } from './api-keys.js';
import { auditRepository } from './audit.js';
import { budgetsRepository, spendRepository } from './spend.js';
import { automationsRepository } from './automations.js';
import { conversationsRepository } from './conversations.js';
import { deliveriesRepository } from './deliveries.js';
import { githubLinksRepository } from './github-links.js';
import { outboundMessagesRepository } from './outbound-messages.js';
import { runReportsRepository } from './run-reports.js';
import { runsRepository } from './runs.js';
import { consoleSessionsRepository, membershipsRepository } from './sign-in.js';
import { sandboxesRepository } from './sandboxes.js';
import { startTasksRepository } from './start-tasks.js';
import { subscriptionsRepository } from './subscriptions.js';
import { threadsRepository } from './threads.js';
import { providerTokensRepository, settingsRepository } from './user-records.js';
import { webhooksRepository } from './webhooks.js';

export function createRepositories(db: Database, access: Access): StorageRepositories {
  return {
    settings: settingsRepository(db, access),
    providerTokens: providerTokensRepository(db, access),
    apiKeys: apiKeysRepository(db, access),
    webhooks: webhooksRepository(db, access),
    automations: automationsRepository(db, access),
    runs: runsRepository(db, access),
    deliveries: deliveriesRepository(db, access),
    githubLinks: githubLinksRepository(db, access),
    sandboxes: sandboxesRepository(db, access),
    conversations: conversationsRepository(db, access),
    runReports: runReportsRepository(db, access),
    threads: threadsRepository(db, access),
    audit: auditRepository(db, access),
    spend: spendRepository(db, access),
    budgets: budgetsRepository(db, access),
    startTasks: startTasksRepository(db, access),
    subscriptions: subscriptionsRepository(db, access),
    outboundMessages: outboundMessagesRepository(db, access),
    memberships: membershipsRepository(db, access),
    consoleSessions: consoleSessionsRepository(db, access),
  };
}
