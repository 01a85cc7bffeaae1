/**
 * The tables of one memory store and the indexes kept in step with them. Each index serves a
 * lookup a repository (or the run queue) makes, so that none of them scans other orgs' or other
 * users' records.
 * @module
 */
import type {
  ApiKeyRecord,
  AuditEntry,
  AppConversationRecord,
  ConsoleSessionRecord,
  MembershipRecord,
  BudgetRecord,
  SpendRow,
  AutomationRecord,
  ConversationEvent,
  DeliveryRecord,
  GithubLinkRecord,
  OutboundMessageRecord,
  ProviderTokensRecord,
  RunRecord,
  RunReport,
  SandboxRecord,
  SettingsRecord,
  StartTaskRecord,
  SubscriptionRecord,
  ThreadRecord,
  WebhookRecord,
} from '@agent-platform/core';
import { auditKey, budgetSlotKey, claimKey, concurrencyKey, linkKey, pairKey, subscriptionKey, spendKey, subscriptionStatusKey, threadKey } from './keys.js';
import { TextStore, type StoredText } from './stored-text.js';
import { AgeIndex, AppendLog, GroupIndex, OrderedIndex, Table, UniqueIndex } from '../table/index.js';

/** A dedup claim as stored: who holds the key, and until when. */
export interface DedupClaimRow {
  readonly org_id: string;
  readonly source: string;
  readonly key: string;
  readonly delivery_id: string;
  readonly expires_at: string;
}

/**
 * A run's GitHub report as stored, one per run (run ids are unique across orgs): with its org, to
 * answer only that org, and its run's `created_at` (which never changes), to order the owed
 * ones as their runs are ordered.
 */
export interface RunReportRow {
  readonly org_id: string;
  readonly run_id: string;
  readonly run_created_at: string;
  readonly report: RunReport;
}

/**
 * A delivery as stored: its payload as UTF-8 bytes outside the V8 heap where it can be (see
 * `stored-text.ts`); repositories turn it back into a {@link DeliveryRecord} on the way out.
 */
export interface DeliveryRow extends Omit<DeliveryRecord, 'payload_json'> {
  readonly payload_json: StoredText | null;
}

/** A subject's spend in one period (see `SpendTotalKey`), under its `spendTotalKey`. */
export interface SpendTotalRow {
  readonly key: string;
  readonly cost_usd: number;
}

/** The key of the single group of an index that orders a whole table. */
export const ALL = '';

export type Database = ReturnType<typeof createDatabase>;

/** How many deliveries the store keeps (see `MemoryStorageOptions`); `Infinity`: no bound. */
export interface DeliveryBounds {
  readonly maxDeliveries: number;
  readonly maxDeliveriesPerOrg: number;
}

export function createDatabase({ maxDeliveries, maxDeliveriesPerOrg }: DeliveryBounds) {
  const apiKeysByHash = new UniqueIndex<ApiKeyRecord>((row) => row.key_hash);
  const apiKeysByUser = new GroupIndex<ApiKeyRecord>((row) => row.user_id);
  const webhooksBySource = new UniqueIndex<WebhookRecord>((row) => pairKey(row.org_id, row.source));
  const webhooksByOrg = new GroupIndex<WebhookRecord>((row) => row.org_id);
  const automationsByOrg = new OrderedIndex<AutomationRecord>({
    keyOf: (row) => row.org_id,
    timeOf: (row) => row.created_at,
    order: 'newest-first',
  });
  // Only enabled automations: ingest asks for nothing else, and disabled ones cost it nothing.
  const enabledAutomationsBySource = new GroupIndex<AutomationRecord>((row) => (row.enabled ? pairKey(row.org_id, row.trigger.source) : undefined));
  const runsByAutomation = new OrderedIndex<RunRecord>({
    keyOf: (row) => pairKey(row.org_id, row.automation_id),
    timeOf: (row) => row.created_at,
    order: 'newest-first',
  });
  // The org's runs across automations, newest first, all of them and by status: the org-wide runs
  // list reads a page of a group without sorting the org's runs.
  const runsByOrg = new OrderedIndex<RunRecord>({ keyOf: (row) => row.org_id, timeOf: (row) => row.created_at, order: 'newest-first' });
  const runsByOrgStatus = new OrderedIndex<RunRecord>({
    keyOf: (row) => pairKey(row.org_id, row.status),
    timeOf: (row) => row.created_at,
    order: 'newest-first',
  });
  // Across orgs, for the executor's polling and the queue's claims (PENDING, oldest first) and
  // recoveries (RUNNING); a status change moves the run between groups. Its RUNNING group's size
  // is the global count the queue's limit is checked against.
  const runsByStatus = new OrderedIndex<RunRecord>({
    keyOf: (row) => row.status,
    timeOf: (row) => row.created_at,
    order: 'oldest-first',
  });
  // Only RUNNING runs, by org: the size of an org's group is its count against the per-org limit,
  // so a claim checks it in O(1) whatever the org's history.
  const runningRunsByOrg = new GroupIndex<RunRecord>((row) => (row.status === 'RUNNING' ? row.org_id : undefined));
  // Flow control: an automation's live (PENDING or RUNNING) runs by concurrency key,
  // oldest first, so `listLive` never reads finished runs ...
  const liveRunsByKey = new OrderedIndex<RunRecord>({
    keyOf: (row) =>
      row.status === 'PENDING' || row.status === 'RUNNING' ? concurrencyKey(row.org_id, row.automation_id, row.concurrency_key ?? null) : undefined,
    timeOf: (row) => row.created_at,
    order: 'oldest-first',
  });
  // ... the RUNNING ones that have a key, so a claim tells in O(1) whether a key is busy ...
  const runningRunsByKey = new GroupIndex<RunRecord>((row) =>
    row.status === 'RUNNING' && typeof row.concurrency_key === 'string' ? concurrencyKey(row.org_id, row.automation_id, row.concurrency_key) : undefined,
  );
  // ... and an automation's runs that count against its rate limit (all but SKIPPED and CANCELLED), by
  // creation, so `countCreatedSince` is a binary search rather than a walk over the window.
  const countedRunsByAutomation = new OrderedIndex<RunRecord>({
    keyOf: (row) => (row.status === 'SKIPPED' || row.status === 'CANCELLED' ? undefined : pairKey(row.org_id, row.automation_id)),
    timeOf: (row) => row.created_at,
    order: 'oldest-first',
  });
  // Reports that still owe their GitHub outcome comment, oldest run first: the reporters' sweep
  // reads only these (and skips those whose run has not ended), never the reports paid.
  const runReportsDue = new OrderedIndex<RunReportRow>({
    keyOf: (row) => (row.report.comment_due === true ? ALL : undefined),
    timeOf: (row) => row.run_created_at,
    order: 'oldest-first',
  });
  const deliveriesByOrg = new OrderedIndex<DeliveryRow>({
    keyOf: (row) => row.org_id,
    timeOf: (row) => row.received_at,
    order: 'newest-first',
  });
  // Every delivery, oldest first across orgs, for the total bound (none without one): the same
  // order as an org's group, by `received_at` then id.
  const deliveriesByAge = new AgeIndex<DeliveryRow>((row) => row.received_at);
  // One group holding every claim, soonest expiry first, for pruning.
  const dedupClaimsByExpiry = new OrderedIndex<DedupClaimRow>({
    keyOf: () => ALL,
    timeOf: (row) => row.expires_at,
    order: 'oldest-first',
  });
  const githubLinksByRef = new GroupIndex<GithubLinkRecord>((row) => pairKey(row.kind, row.key));
  const githubLinksByOrg = new OrderedIndex<GithubLinkRecord>({
    keyOf: (row) => row.org_id,
    timeOf: (row) => row.created_at,
    // An org links a (kind, key) once, so this tie-breaker is unique within the group.
    tieOf: (row) => `${row.kind}\u0000${row.key}`,
    order: 'oldest-first',
  });
  const sandboxesByUser = new OrderedIndex<SandboxRecord>({
    keyOf: (row) => row.created_by_user_id,
    timeOf: (row) => row.created_at,
    order: 'newest-first',
  });
  // Counted by status for the metrics.
  const sandboxesByStatus = new GroupIndex<SandboxRecord>((row) => row.status);
  const conversationsByUser = new OrderedIndex<AppConversationRecord>({
    keyOf: (row) => row.created_by_user_id,
    timeOf: (row) => row.created_at,
    order: 'newest-first',
  });
  const startTasksByUser = new OrderedIndex<StartTaskRecord>({
    keyOf: (row) => row.created_by_user_id,
    timeOf: (row) => row.created_at,
    order: 'newest-first',
  });
  const subscriptionsByOrg = new OrderedIndex<SubscriptionRecord>({
    keyOf: (row) => row.org_id,
    timeOf: (row) => row.created_at,
    order: 'oldest-first',
  });
  // Only enabled subscriptions: every event's fan-out asks for them, and disabled ones cost it nothing.
  const enabledSubscriptionsByOrg = new GroupIndex<SubscriptionRecord>((row) => (row.enabled ? row.org_id : undefined));
  const messagesBySubscription = new OrderedIndex<OutboundMessageRecord>({
    keyOf: (row) => subscriptionKey(row.org_id, row.subscription_id),
    timeOf: (row) => row.created_at,
    order: 'newest-first',
  });
  // A status filter reads its own group, so a page of failed messages never walks the delivered ones.
  const messagesBySubscriptionStatus = new OrderedIndex<OutboundMessageRecord>({
    keyOf: (row) => subscriptionStatusKey(row.org_id, row.subscription_id, row.status),
    timeOf: (row) => row.created_at,
    order: 'newest-first',
  });
  // Across orgs, soonest due first: only pending messages with a due time, so a sender's claim
  // never reads delivered, failed or cancelled ones. A claim's lease leaves a message in place.
  const pendingMessagesByDue = new OrderedIndex<OutboundMessageRecord>({
    keyOf: (row) => (row.status === 'pending' && row.next_attempt_at !== null ? ALL : undefined),
    timeOf: (row) => row.next_attempt_at ?? '',
    order: 'oldest-first',
  });
  // An org's audit entries: numbered 1, 2, 3, ... without gaps, so the group's size is the org's
  // last seq, and a list reads entries by key from the seq it starts after.
  const auditByOrg = new GroupIndex<AuditEntry>((row) => row.org_id);
  // An org's members, oldest first, for the members list; user ids break ties like `COLLATE "C"`.
  const membershipsByOrg = new OrderedIndex<MembershipRecord>({
    keyOf: (row) => row.org_id,
    timeOf: (row) => row.created_at,
    tieOf: (row) => row.user_id,
    order: 'oldest-first',
  });
  // Console sessions across users, soonest expiry first: a sign-in's sweep reads only expired ones.
  const consoleSessionsByExpiry = new OrderedIndex<ConsoleSessionRecord>({
    keyOf: () => ALL,
    timeOf: (row) => row.expires_at,
    order: 'oldest-first',
  });
  // An org's spend rows (a few per user, automation, model and day), for its sums; and its budgets.
  const spendByOrg = new GroupIndex<SpendRow>((row) => row.org_id);
  const budgetsByOrg = new GroupIndex<BudgetRecord>((row) => row.org_id);
  const budgetsBySlot = new UniqueIndex<BudgetRecord>(budgetSlotKey);
  // Long payloads, as bytes in reused blocks off the V8 heap; a delivery gone for good gives its
  // block back. Only when deliveries are evicted: with no bound there would be no block to reuse.
  const texts = new TextStore(maxDeliveries !== Infinity || maxDeliveriesPerOrg !== Infinity);
  const tables = {
    settings: new Table<SettingsRecord>((row) => row.user_id),
    providerTokens: new Table<ProviderTokensRecord>((row) => row.user_id),
    apiKeys: new Table<ApiKeyRecord>((row) => row.id, [apiKeysByHash, apiKeysByUser]),
    webhooks: new Table<WebhookRecord>((row) => row.id, [webhooksBySource, webhooksByOrg]),
    automations: new Table<AutomationRecord>((row) => row.id, [automationsByOrg, enabledAutomationsBySource]),
    runs: new Table<RunRecord>(
      (row) => row.id,
      [runsByAutomation, runsByOrg, runsByOrgStatus, runsByStatus, runningRunsByOrg, liveRunsByKey, runningRunsByKey, countedRunsByAutomation],
    ),
    runReports: new Table<RunReportRow>((row) => row.run_id, [runReportsDue]),
    // Only ever read by its whole key, so no index: a thread automation's follow-up looks up one thread.
    threads: new Table<ThreadRecord>((row) => threadKey(row.org_id, row.automation_id, row.key)),
    audit: new Table<AuditEntry>((row) => auditKey(row.org_id, row.seq), [auditByOrg]),
    // A membership by its (org, user) key, or an org's all together; a session by its hash.
    memberships: new Table<MembershipRecord>((row) => pairKey(row.org_id, row.user_id), [membershipsByOrg]),
    consoleSessions: new Table<ConsoleSessionRecord>((row) => row.id_hash, [consoleSessionsByExpiry]),
    spend: new Table<SpendRow>(spendKey, [spendByOrg]),
    /** Each subject's running total per day and month, keyed by `spendTotalKey`: what a budget check reads. */
    spendTotals: new Table<SpendTotalRow>((row) => row.key),
    budgets: new Table<BudgetRecord>((row) => row.id, [budgetsByOrg, budgetsBySlot]),
    deliveries: new Table<DeliveryRow>((row) => row.id, maxDeliveries === Infinity ? [deliveriesByOrg] : [deliveriesByOrg, deliveriesByAge], {
      release: (row) => {
        if (row.payload_json !== null) texts.release(row.payload_json);
      },
    }),
    dedupClaims: new Table<DedupClaimRow>((row) => claimKey(row.org_id, row.source, row.key), [dedupClaimsByExpiry]),
    githubLinks: new Table<GithubLinkRecord>((row) => linkKey(row.kind, row.key, row.org_id), [githubLinksByRef, githubLinksByOrg]),
    sandboxes: new Table<SandboxRecord>((row) => row.id, [sandboxesByUser, sandboxesByStatus]),
    conversations: new Table<AppConversationRecord>((row) => row.id, [conversationsByUser]),
    /** Each conversation's events by conversation id; an event's index is its `seq`. */
    events: new AppendLog<ConversationEvent>(),
    startTasks: new Table<StartTaskRecord>((row) => row.id, [startTasksByUser]),
    subscriptions: new Table<SubscriptionRecord>((row) => row.id, [subscriptionsByOrg, enabledSubscriptionsByOrg]),
    outboundMessages: new Table<OutboundMessageRecord>((row) => row.id, [messagesBySubscription, messagesBySubscriptionStatus, pendingMessagesByDue]),
  };
  return {
    maxDeliveries,
    maxDeliveriesPerOrg,
    texts,
    ...tables,
    /** Every table and log, for a transaction to begin, commit or roll back together. */
    transactional: Object.values(tables),
    apiKeysByHash,
    apiKeysByUser,
    webhooksBySource,
    webhooksByOrg,
    automationsByOrg,
    enabledAutomationsBySource,
    runsByAutomation,
    runsByOrg,
    runsByOrgStatus,
    runsByStatus,
    runningRunsByOrg,
    liveRunsByKey,
    runningRunsByKey,
    countedRunsByAutomation,
    runReportsDue,
    auditByOrg,
    membershipsByOrg,
    consoleSessionsByExpiry,
    spendByOrg,
    budgetsByOrg,
    budgetsBySlot,
    deliveriesByOrg,
    deliveriesByAge,
    dedupClaimsByExpiry,
    githubLinksByRef,
    githubLinksByOrg,
    sandboxesByUser,
    sandboxesByStatus,
    conversationsByUser,
    startTasksByUser,
    subscriptionsByOrg,
    enabledSubscriptionsByOrg,
    messagesBySubscription,
    messagesBySubscriptionStatus,
    pendingMessagesByDue,
  };
}
