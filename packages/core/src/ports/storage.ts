/**
 * The storage port: raw repositories for each record. Adapters store and fetch; the core owns
 * validation, ids, timestamps and encryption. Every adapter runs the conformance suite in
 * `@agent-platform/testing` (`testStorageAdapter`).
 * @module
 */
import type { ApiKeyRecord } from '../schemas/api-key.js';
import type { ProviderTokensRecord } from '../schemas/provider-tokens.js';
import type { SettingsRecord } from '../schemas/settings.js';
import type { WebhookRecord } from '../schemas/webhook.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { DeliveryRecord, DeliveryStatus } from '../schemas/delivery.js';
import type { GithubLinkRecord } from '../schemas/github-link.js';
import type { RunRecord, RunReport } from '../schemas/run.js';
import type { RunsRepository } from './runs-repository.js';
import type { ThreadRecord } from '../schemas/thread.js';
import type { AuditRepository } from './audit-repository.js';
import type { ConsoleSessionsRepository, MembershipsRepository } from './sign-in-repository.js';
import type { BudgetsRepository, SpendRepository } from './spend-repository.js';
import type { SandboxRecord } from '../schemas/sandbox.js';
import type { SandboxStatus } from '../schemas/sandbox-spec.js';
import type { AppConversationRecord, ConversationEvent, StartTaskRecord } from '../schemas/app-conversation.js';
import type { ChangeFeed } from './change-feed.js';
import type { RunQueue } from './run-queue.js';
import type { OutboundMessageRecord, OutboundMessageStatus, SubscriptionRecord } from '../schemas/subscription.js';

export { RUN_PATCH_FIELDS, type OrgRunsFilter, type RunGuard, type RunPatch, type RunQueueSummary, type RunsRepository } from './runs-repository.js';

/** Thrown by an adapter when a write breaks a uniqueness rule (e.g. one source per org). */
export class StorageConflictError extends Error {
  override readonly name = 'StorageConflictError';
}

/** Thrown by an adapter when its backend cannot be reached; answered 503 so callers retry. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
}

export interface ListOptions {
  limit: number;
  offset: number;
}

export interface ListResult<T> {
  items: T[];
  total: number;
}

/** One settings record per user. */
export interface SettingsRepository {
  get(userId: string): Promise<SettingsRecord | null>;
  /** Inserts or replaces the user's record. */
  put(record: SettingsRecord): Promise<void>;
}

/** One provider-token map per user. */
export interface ProviderTokensRepository {
  get(userId: string): Promise<ProviderTokensRecord | null>;
  /** Inserts or replaces the user's record. */
  put(record: ProviderTokensRecord): Promise<void>;
  delete(userId: string): Promise<void>;
}

export interface ApiKeysRepository {
  /** Throws {@link StorageConflictError} when the id or the hash exists. */
  insert(record: ApiKeyRecord): Promise<void>;
  get(id: string): Promise<ApiKeyRecord | null>;
  getByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** The user's keys, oldest first. */
  listByUser(userId: string): Promise<ApiKeyRecord[]>;
  /** Records a use; no-op for an unknown id. */
  touch(id: string, at: string): Promise<void>;
  /** True when a key was deleted. */
  delete(id: string): Promise<boolean>;
}

export interface WebhooksRepository {
  /** Throws {@link StorageConflictError} when the org already has the source (or the id exists). */
  insert(record: WebhookRecord): Promise<void>;
  get(orgId: string, id: string): Promise<WebhookRecord | null>;
  getBySource(orgId: string, source: string): Promise<WebhookRecord | null>;
  /** The org's webhooks, oldest first (then by id). */
  list(orgId: string, options: ListOptions): Promise<ListResult<WebhookRecord>>;
  /** Replaces a stored record (same id and org); false when there is none. */
  update(record: WebhookRecord): Promise<boolean>;
  /** True when a webhook was deleted. */
  delete(orgId: string, id: string): Promise<boolean>;
}

export interface AutomationsRepository {
  /** Throws {@link StorageConflictError} when the id exists. */
  insert(record: AutomationRecord): Promise<void>;
  get(orgId: string, id: string): Promise<AutomationRecord | null>;
  /** The org's automations, newest first (by `created_at`, then `id` descending). */
  list(orgId: string, options: ListOptions): Promise<ListResult<AutomationRecord>>;
  /**
   * The org's **enabled** automations whose `trigger.source` is `source`, in any order. Must not
   * scan other orgs' or other sources' automations: ingest calls it for every delivery.
   */
  listEnabledBySource(orgId: string, source: string): Promise<AutomationRecord[]>;
  /** Replaces a stored record (same id and org); false when there is none. */
  update(record: AutomationRecord): Promise<boolean>;
  /** Sets `last_triggered_at` on the org's automations named; unknown ids are skipped. */
  markTriggered(orgId: string, ids: readonly string[], at: string): Promise<void>;
  /** True when an automation was deleted. */
  delete(orgId: string, id: string): Promise<boolean>;
}

export interface DeliveryListOptions extends ListOptions {
  source?: string;
  status?: DeliveryStatus;
}

export interface DeliveriesRepository {
  /** Throws {@link StorageConflictError} when the id exists. */
  insert(record: DeliveryRecord): Promise<void>;
  get(orgId: string, id: string): Promise<DeliveryRecord | null>;
  /** The org's deliveries, newest first (by `received_at`, then `id` descending), optionally filtered. */
  list(orgId: string, options: DeliveryListOptions): Promise<ListResult<DeliveryRecord>>;
  /**
   * Claims a dedup key for a delivery: returns `null` and records the claim when the key is
   * free (never claimed, or its claim expired by `now`), or the id of the delivery holding a
   * live claim. Used inside a transaction, so that of many concurrent redeliveries exactly one
   * claims the key.
   */
  claimDedupKey(claim: DedupClaim): Promise<string | null>;
  /**
   * Records a new delivery and its PENDING runs as one atomic step, first claiming its dedup key
   * (when `claim` is given) exactly as {@link claimDedupKey} does: when a live claim holds the
   * key nothing is written and the holder's delivery id is answered; otherwise the claim, the
   * delivery and the runs are all written, or none of them (a taken delivery or run id throws
   * {@link StorageConflictError}). Atomic on its own, so ingest needs no transaction around it
   * (an adapter may do it in one statement); inside a transaction it joins that transaction.
   */
  recordDelivery(write: DeliveryWrite): Promise<{ duplicateOf: string | null }>;
}

/** What {@link DeliveriesRepository.recordDelivery} writes. */
export interface DeliveryWrite {
  delivery: DeliveryRecord;
  /** The runs the delivery starts (each PENDING); may be empty. */
  runs: readonly RunRecord[];
  /** The dedup claim on the delivery's key, or `null` for a delivery never deduplicated (a replay). */
  claim: Omit<DedupClaim, 'deliveryId'> | null;
}

export interface DedupClaim {
  orgId: string;
  source: string;
  key: string;
  deliveryId: string;
  /** When the claim lapses and the key may be claimed again. */
  expiresAt: string;
  now: string;
}

export interface GithubLinksRepository {
  /** Inserts or replaces the link (kind, key, org) — idempotent. */
  put(record: GithubLinkRecord): Promise<void>;
  /** True when a link was deleted. */
  delete(kind: GithubLinkRecord['kind'], key: string, orgId: string): Promise<boolean>;
  /** The distinct orgs linked to any of `refs` (keys compared exactly; callers lower-case logins). */
  findOrgs(refs: readonly { kind: GithubLinkRecord['kind']; key: string }[]): Promise<string[]>;
  /** Every link of an org, oldest first. */
  listByOrg(orgId: string): Promise<GithubLinkRecord[]>;
}

/** A page addressed by an opaque cursor (V1 endpoints): `next_page_id` continues it. */
export interface CursorPage<T> {
  items: T[];
  nextPageId: string | null;
}

export interface CursorOptions {
  /** A positive integer; otherwise a `PlatformError` VALIDATION_FAILED at `["query", "limit"]`. */
  limit: number;
  /**
   * `nextPageId` of the previous page; omitted for the first. One the adapter cannot read is a
   * `PlatformError` VALIDATION_FAILED at `["query", "page_id"]`. Inserts and deletes between pages
   * never make a page repeat or skip an item.
   */
  pageId?: string;
}

/** Sandboxes belong to the user who started them. */
export interface SandboxesRepository {
  /** Throws {@link StorageConflictError} when the id exists. */
  insert(record: SandboxRecord): Promise<void>;
  /** Any user's sandbox by id (the executor's view); callers check ownership. */
  get(id: string): Promise<SandboxRecord | null>;
  /** The user's sandboxes, newest first (by `created_at`, then `id` descending). */
  listByUser(userId: string, options: CursorOptions): Promise<CursorPage<SandboxRecord>>;
  /** Replaces a stored record; false when there is none. */
  update(record: SandboxRecord): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  /** How many sandboxes are stored in each status (statuses with none are absent); read for the metrics. */
  countByStatus(): Promise<Partial<Record<SandboxStatus, number>>>;
}

export interface ConversationsRepository {
  /** Throws {@link StorageConflictError} when the id exists. */
  insert(record: AppConversationRecord): Promise<void>;
  get(id: string): Promise<AppConversationRecord | null>;
  /** The user's conversations, newest first (by `created_at`, then `id` descending). */
  listByUser(userId: string, options: CursorOptions): Promise<CursorPage<AppConversationRecord>>;
  /**
   * The one way a stored conversation changes: a guarded write. Atomically, when the conversation
   * exists and — if `guard.version` is given — its `version` equals it, the members of `patch`
   * that are not `undefined` are written, `version` goes up by one, and the conversation is
   * returned as stored; otherwise nothing is written and the answer is `null`. Writes of different
   * members never undo one another (a pause and the agent's status land both); a caller that
   * decides from what it read passes the version it read, and of concurrent such writes exactly
   * one succeeds.
   */
  patch(id: string, patch: ConversationPatch, guard?: ConversationGuard): Promise<AppConversationRecord | null>;
  /**
   * Appends events to a conversation, assigning `seq` in order after the last stored one (the
   * `seq` given is ignored; `conversation_id` is set); returns the events as stored. Concurrent
   * appends never share or skip a `seq`. An unknown conversation: {@link StorageConflictError}.
   */
  appendEvents(conversationId: string, events: readonly Omit<ConversationEvent, 'seq'>[]): Promise<ConversationEvent[]>;
  /** A conversation's events in `seq` order, from `pageId` on (an empty page for an unknown conversation). */
  listEvents(conversationId: string, options: CursorOptions): Promise<CursorPage<ConversationEvent>>;
  /**
   * Deletes a conversation together with its events and the start tasks that produced it (its
   * owner's start tasks whose `app_conversation_id` is `id`), atomically; true when the
   * conversation existed. An append racing it lands before (and goes with it) or fails as an
   * append to an unknown conversation; the id may be inserted again, its events starting at 0.
   */
  delete(id: string): Promise<boolean>;
}

/** The members of a conversation a {@link ConversationsRepository.patch} may write (never its id, owner or version). */
export type ConversationPatch = Partial<Omit<AppConversationRecord, 'id' | 'org_id' | 'created_by_user_id' | 'version'>>;

/** What a guarded conversation write requires of the stored record. */
export interface ConversationGuard {
  /** The version the caller read: the write happens only if nobody wrote since. */
  version?: number;
}

/**
 * What a run reported back to the thread its event came from (a GitHub issue or pull request):
 * the answer-back feature's own record, one per run, apart from the run itself.
 */
export interface RunReportsRepository {
  /** The run's report, or `null` when it has none (or the org has no such run). */
  get(orgId: string, runId: string): Promise<RunReport | null>;
  /** The reports of the org's runs named, by run id; runs without one are absent. */
  getMany(orgId: string, runIds: readonly string[]): Promise<Map<string, RunReport>>;
  /**
   * Writes (replaces) the run's report, whatever the run's status — an outcome comment is posted
   * after its final status is written. False, and nothing written, when the org has no such run.
   */
  put(orgId: string, runId: string, report: RunReport): Promise<boolean>;
  /**
   * Final runs (COMPLETED, FAILED, CANCELLED, SKIPPED) whose report has `comment_due` true — an
   * outcome comment owed by a worker that died before posting it — across all orgs, oldest run
   * first (by the run's `created_at`, then its `id`), at most `limit`, each with its report. Must
   * not scan reports that owe nothing: it is asked every minute.
   */
  listDue(limit: number): Promise<Array<{ run: RunRecord; report: RunReport }>>;
}

/**
 * Code-host threads of thread automations ({@link ThreadRecord}), keyed by (org, automation, key).
 * Conformance: `describeThreads`.
 */
export interface ThreadsRepository {
  /** The thread, or `null` when the automation has none with this key. */
  get(orgId: string, automationId: string, key: string): Promise<ThreadRecord | null>;
  /** Writes (inserts or replaces) the thread named by its `org_id`, `automation_id` and `key`. */
  put(record: ThreadRecord): Promise<void>;
}

export interface StartTasksRepository {
  /** Throws {@link StorageConflictError} when the id exists. */
  insert(record: StartTaskRecord): Promise<void>;
  get(id: string): Promise<StartTaskRecord | null>;
  /** The user's start tasks, newest first (by `created_at`, then `id` descending). */
  listByUser(userId: string, options: CursorOptions): Promise<CursorPage<StartTaskRecord>>;
  /** Replaces a stored record; false when there is none. */
  update(record: StartTaskRecord): Promise<boolean>;
}

/** An org's outbound-event subscribers. */
export interface SubscriptionsRepository {
  /** Throws {@link StorageConflictError} when the id exists. */
  insert(record: SubscriptionRecord): Promise<void>;
  get(orgId: string, id: string): Promise<SubscriptionRecord | null>;
  /** The org's subscriptions, oldest first (by `created_at`, then `id`). */
  list(orgId: string, options: ListOptions): Promise<ListResult<SubscriptionRecord>>;
  /** The org's **enabled** subscriptions, in any order: every event's fan-out reads it. */
  listEnabled(orgId: string): Promise<SubscriptionRecord[]>;
  /** Replaces a stored record (same id and org); false when there is none. */
  update(record: SubscriptionRecord): Promise<boolean>;
  /** Deletes the subscription and every message of it; true when it existed. */
  delete(orgId: string, id: string): Promise<boolean>;
}

export interface OutboundMessageListOptions extends ListOptions {
  status?: OutboundMessageStatus;
}

/** What a sender asks for when it takes due messages. */
export interface OutboundClaim {
  /** The sender claiming: becomes the messages' `lease_owner`. */
  owner: string;
  max: number;
  /** How long the claim holds; a sender that died lets its messages go when it lapses. */
  leaseMs: number;
  /** The caller's clock. */
  now: Date;
}

/** What a message transition requires. */
export interface OutboundMessageGuard {
  from: readonly OutboundMessageStatus[];
  /** The lease owner the message must have; `null` for none. Omitted: any. */
  leaseOwner?: string | null;
}

export type OutboundMessagePatch = Partial<
  Pick<OutboundMessageRecord, 'status' | 'attempt' | 'next_attempt_at' | 'detail' | 'attempts' | 'updated_at' | 'lease_owner' | 'lease_expires_at'>
>;

/**
 * The messages sent to subscribers. They are a queue of their own rows, worked the way the run
 * queue works its runs — claimed under a lease, due at `next_attempt_at` (a retry's backoff),
 * taken back when the lease lapses — and changed only by a compare-and-set.
 */
export interface OutboundMessagesRepository {
  /** Throws {@link StorageConflictError} when an id exists (and inserts none of them). */
  insertMany(records: readonly OutboundMessageRecord[]): Promise<void>;
  get(orgId: string, id: string): Promise<OutboundMessageRecord | null>;
  /** A subscription's messages, newest first (by `created_at`, then `id` descending), optionally by status. */
  listBySubscription(orgId: string, subscriptionId: string, options: OutboundMessageListOptions): Promise<ListResult<OutboundMessageRecord>>;
  /**
   * Takes up to `max` `pending` messages, across orgs, whose `next_attempt_at` has passed by `now`
   * and whose lease is unset or lapsed (`lease_expires_at` ≤ now), soonest due first (by
   * `next_attempt_at`, then `id`): writes `lease_owner` = owner and `lease_expires_at` = now +
   * leaseMs, and returns them as written. Concurrent claims never take the same message.
   */
  claimDue(claim: OutboundClaim): Promise<OutboundMessageRecord[]>;
  /**
   * The one way a stored message changes: when the org's message exists, its status is in
   * `guard.from` and — when `guard.leaseOwner` is given — its `lease_owner` equals it (`null`: none),
   * the members of `patch` that are not `undefined` are written and the message is returned as
   * stored; otherwise nothing is written and the answer is `null`.
   */
  transition(orgId: string, id: string, guard: OutboundMessageGuard, patch: OutboundMessagePatch): Promise<OutboundMessageRecord | null>;
}

/** The members an {@link OutboundMessagePatch} may hold. */
export const OUTBOUND_MESSAGE_PATCH_FIELDS = [
  'status',
  'attempt',
  'next_attempt_at',
  'detail',
  'attempts',
  'updated_at',
  'lease_owner',
  'lease_expires_at',
] as const satisfies readonly (keyof OutboundMessagePatch)[];

/** The repositories, as seen inside and outside a transaction. */
export interface StorageRepositories {
  readonly settings: SettingsRepository;
  readonly providerTokens: ProviderTokensRepository;
  readonly apiKeys: ApiKeysRepository;
  readonly webhooks: WebhooksRepository;
  readonly automations: AutomationsRepository;
  readonly runs: RunsRepository;
  readonly deliveries: DeliveriesRepository;
  readonly githubLinks: GithubLinksRepository;
  readonly sandboxes: SandboxesRepository;
  readonly conversations: ConversationsRepository;
  readonly runReports: RunReportsRepository;
  readonly threads: ThreadsRepository;
  readonly audit: AuditRepository;
  /** The spend ledger: model cost per org, user, automation, model and day. */
  readonly spend: SpendRepository;
  readonly budgets: BudgetsRepository;
  readonly startTasks: StartTasksRepository;
  readonly subscriptions: SubscriptionsRepository;
  readonly outboundMessages: OutboundMessagesRepository;
  /** Console sign-in: who belongs to which org (conformance: `describeMemberships`). */
  readonly memberships: MembershipsRepository;
  /** Console sign-in's sessions, by the hash of their id (conformance: `describeConsoleSessions`). */
  readonly consoleSessions: ConsoleSessionsRepository;
}

export interface StorageAdapter extends StorageRepositories {
  /** Adapter name, for logs (`memory`, `postgres`, ...). */
  readonly name: string;
  /** The queue executors claim PENDING runs from, over these runs (conformance: `testRunQueue`). */
  readonly runQueue: RunQueue;
  /** Change announcements between the processes sharing this backend. */
  readonly changes: ChangeFeed;
  /**
   * Runs `fn` atomically: every write through `tx` lands, or none does when `fn` throws.
   * Concurrent transactions behave as if run one after another.
   */
  transaction<T>(fn: (tx: StorageRepositories) => Promise<T>): Promise<T>;
  /** Resolves when the backend is reachable (readiness); throws otherwise. */
  ping(): Promise<void>;
  /**
   * The schema's migration state, for readiness: `applied` is the newest migration the database
   * has (0 for none), `latest` the newest this adapter's code knows. Adapters with no schema to
   * migrate (memory) leave it out. Throws when the backend is unreachable.
   */
  migrationStatus?(): Promise<{ applied: number; latest: number }>;
  close(): Promise<void>;
}
