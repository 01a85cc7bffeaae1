/**
 * An in-memory {@link StorageAdapter}, for tests, examples and single-process deployments that
 * can lose their data on restart.
 *
 * - Records are deep-copied on the way in and out, so callers never share objects with the store.
 * - Writes and transactions take one async mutex, so transactions run one after another and a
 *   write from outside never lands in the middle of one. Reads outside a transaction take no
 *   lock: they read the last committed state, which the undo log keeps at hand.
 * - A transaction writes in place and logs the pre-image of each row it touches; rollback puts
 *   those back. Its cost grows with the rows it touches, not with the size of the store.
 * - Every lookup is indexed, so no operation scans other orgs' records: API keys by hash and by
 *   user; webhooks by (org, source) and by org; automations by org, and the enabled ones by
 *   (org, trigger source), so `listEnabledBySource` costs O(the automations it returns); runs by
 *   (org, automation) and by status (across orgs), so `listByStatus` costs O(limit) and never
 *   touches runs in other statuses; deliveries by org; dedup claims by (org, source, key) and by
 *   expiry; GitHub links by (kind, key) and by org; sandboxes, conversations and start tasks by
 *   user; conversation events by conversation.
 * - Ordered lists (automations, runs, deliveries, GitHub links, sandboxes, conversations, start
 *   tasks) are kept sorted inside their index: records arriving in time order are appended in
 *   O(1), others take a binary search. A page then costs O(offset + limit), never a sort of the
 *   org's records; a delivery list filtered by source or status scans the org's deliveries.
 * - Cursor pages (`CursorOptions`) are keyset pages: a `pageId` names the last item of the page
 *   before (its `created_at` instant and id, base64url-encoded), and the next page starts right
 *   after it, found by binary search — so records inserted or deleted between pages never make
 *   one repeat or skip. A conversation's events are an append-only array whose index is `seq`;
 *   their `pageId` is the next `seq`. A `pageId` the adapter did not hand out (or a `limit` that
 *   is not a positive integer) throws a `PlatformError` `VALIDATION_FAILED`.
 * - Memory stays bounded where records pile up: an org keeps at most
 *   {@link MemoryStorageOptions.maxDeliveriesPerOrg} deliveries (the oldest are evicted), and
 *   expired dedup claims are pruned a few at a time by later claims. Dedup claims are kept apart
 *   from deliveries, so evicting a delivery never frees its dedup key early. Runs are not evicted.
 * @module
 */
import { PlatformError, StorageConflictError, StorageUnavailableError } from '@agent-platform/core';
import type {
  ApiKeyRecord,
  AppConversationRecord,
  AutomationRecord,
  ConversationEvent,
  CursorOptions,
  CursorPage,
  DedupClaim,
  DeliveryRecord,
  GithubLinkRecord,
  ListOptions,
  ListResult,
  ProviderTokensRecord,
  RunRecord,
  SandboxRecord,
  SettingsRecord,
  StartTaskRecord,
  StorageAdapter,
  StorageRepositories,
  WebhookRecord,
} from '@agent-platform/core';
import { cloneJson } from './clone-json.js';
import { Mutex } from './mutex.js';
import { AppendLog, GroupIndex, OrderedIndex, Table, UniqueIndex, instantOf } from './table.js';
import type { AppendLogView, OrderedRows } from './table.js';

export const DRIVER_NAME = 'memory';

/** Default of {@link MemoryStorageOptions.maxDeliveriesPerOrg}. */
export const DEFAULT_MAX_DELIVERIES_PER_ORG = 10_000;

/** Expired dedup claims dropped per claim made; more than one, so a backlog shrinks. */
const CLAIMS_PRUNED_PER_CLAIM = 4;

/** Records to start with, written as if inserted one by one (conflicts throw). */
export interface MemoryStorageSeed {
  settings?: readonly SettingsRecord[];
  providerTokens?: readonly ProviderTokensRecord[];
  apiKeys?: readonly ApiKeyRecord[];
  webhooks?: readonly WebhookRecord[];
  automations?: readonly AutomationRecord[];
  runs?: readonly RunRecord[];
  /** Subject to {@link MemoryStorageOptions.maxDeliveriesPerOrg} like any insert. */
  deliveries?: readonly DeliveryRecord[];
  githubLinks?: readonly GithubLinkRecord[];
}

export interface MemoryStorageOptions {
  /** Records the store starts with, e.g. a fixed API key for a demo server. */
  seed?: MemoryStorageSeed;
  /**
   * Most deliveries kept per org; default 10,000, `Infinity` for no limit. A `deliveries.insert`
   * that takes an org past it evicts the org's oldest deliveries (lowest `received_at`, then
   * lowest id) — the inserted one itself, if it is the oldest. Eviction is a write like any
   * other: a rolled-back transaction restores what it evicted. An evicted delivery reads as
   * missing, its id may be inserted again, and its dedup claim lives on until `expiresAt`.
   */
  maxDeliveriesPerOrg?: number;
}

/** A dedup claim as stored: who holds the key, and until when. */
interface DedupClaimRow {
  readonly org_id: string;
  readonly source: string;
  readonly key: string;
  readonly delivery_id: string;
  readonly expires_at: string;
}

type Database = ReturnType<typeof createDatabase>;

/** What distinguishes the repositories of a transaction from the adapter's own. */
interface Access {
  /** Transactions read their own writes; everyone else reads committed state. */
  readonly view: 'live' | 'committed';
  /** Throws when the repositories may no longer be used. */
  check(): void;
  /** Runs a write against the live tables. */
  write<T>(op: () => T): Promise<T>;
}

/**
 * Creates an empty (or seeded) in-memory store.
 *
 * Inside `transaction(fn)`, use only the `tx` repositories for writes: a write through the
 * adapter itself waits for the transaction to finish, and the transaction waits for it.
 *
 * @throws RangeError when `maxDeliveriesPerOrg` is not a positive integer (or `Infinity`).
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): StorageAdapter {
  const maxDeliveriesPerOrg = options.maxDeliveriesPerOrg ?? DEFAULT_MAX_DELIVERIES_PER_ORG;
  if (!(maxDeliveriesPerOrg >= 1) || (!Number.isInteger(maxDeliveriesPerOrg) && maxDeliveriesPerOrg !== Infinity)) {
    throw new RangeError(`maxDeliveriesPerOrg must be a positive integer or Infinity, got ${maxDeliveriesPerOrg}`);
  }
  const db = createDatabase(maxDeliveriesPerOrg);
  const tables = [
    db.settings,
    db.providerTokens,
    db.apiKeys,
    db.webhooks,
    db.automations,
    db.runs,
    db.deliveries,
    db.dedupClaims,
    db.githubLinks,
    db.sandboxes,
    db.conversations,
    db.events,
    db.startTasks,
  ] as const;
  const mutex = new Mutex();
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new StorageUnavailableError('The memory storage is closed');
  };

  if (options.seed) seed(db, options.seed);

  const repositories = createRepositories(db, {
    view: 'committed',
    check: assertOpen,
    write: (op) =>
      mutex.run(() => {
        assertOpen();
        return op();
      }),
  });

  return {
    name: DRIVER_NAME,
    ...repositories,

    async transaction(fn) {
      assertOpen();
      return mutex.run(async () => {
        assertOpen();
        let open = true;
        const check = (): void => {
          if (!open) throw new Error('The transaction has finished; its repositories can no longer be used');
        };
        const tx = createRepositories(db, {
          view: 'live',
          check,
          write: async (op) => {
            check();
            return op();
          },
        });
        for (const table of tables) table.begin();
        try {
          const result = await fn(tx);
          for (const table of tables) table.commit();
          return result;
        } catch (error) {
          for (const table of tables) table.rollback();
          throw error;
        } finally {
          open = false;
        }
      });
    },

    async ping() {
      assertOpen();
    },

    async close() {
      // Let queued writes and transactions finish first, as a database pool would on shutdown.
      await mutex.run(() => {
        closed = true;
      });
    },
  };
}

function createDatabase(maxDeliveriesPerOrg: number) {
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
  const enabledAutomationsBySource = new GroupIndex<AutomationRecord>((row) =>
    row.enabled ? pairKey(row.org_id, row.trigger.source) : undefined,
  );
  const runsByAutomation = new OrderedIndex<RunRecord>({
    keyOf: (row) => pairKey(row.org_id, row.automation_id),
    timeOf: (row) => row.created_at,
    order: 'newest-first',
  });
  // Across orgs, for the executor's polling; a status change moves the run between groups.
  const runsByStatus = new OrderedIndex<RunRecord>({
    keyOf: (row) => row.status,
    timeOf: (row) => row.created_at,
    order: 'oldest-first',
  });
  const deliveriesByOrg = new OrderedIndex<DeliveryRecord>({
    keyOf: (row) => row.org_id,
    timeOf: (row) => row.received_at,
    order: 'newest-first',
  });
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
  return {
    maxDeliveriesPerOrg,
    settings: new Table<SettingsRecord>((row) => row.user_id),
    providerTokens: new Table<ProviderTokensRecord>((row) => row.user_id),
    apiKeys: new Table<ApiKeyRecord>((row) => row.id, [apiKeysByHash, apiKeysByUser]),
    webhooks: new Table<WebhookRecord>((row) => row.id, [webhooksBySource, webhooksByOrg]),
    automations: new Table<AutomationRecord>((row) => row.id, [automationsByOrg, enabledAutomationsBySource]),
    runs: new Table<RunRecord>((row) => row.id, [runsByAutomation, runsByStatus]),
    deliveries: new Table<DeliveryRecord>((row) => row.id, [deliveriesByOrg]),
    dedupClaims: new Table<DedupClaimRow>(
      (row) => claimKey(row.org_id, row.source, row.key),
      [dedupClaimsByExpiry],
    ),
    githubLinks: new Table<GithubLinkRecord>(
      (row) => linkKey(row.kind, row.key, row.org_id),
      [githubLinksByRef, githubLinksByOrg],
    ),
    sandboxes: new Table<SandboxRecord>((row) => row.id, [sandboxesByUser]),
    conversations: new Table<AppConversationRecord>((row) => row.id, [conversationsByUser]),
    /** Each conversation's events by conversation id; an event's index is its `seq`. */
    events: new AppendLog<ConversationEvent>(),
    startTasks: new Table<StartTaskRecord>((row) => row.id, [startTasksByUser]),
    apiKeysByHash,
    apiKeysByUser,
    webhooksBySource,
    webhooksByOrg,
    automationsByOrg,
    enabledAutomationsBySource,
    runsByAutomation,
    runsByStatus,
    deliveriesByOrg,
    dedupClaimsByExpiry,
    githubLinksByRef,
    githubLinksByOrg,
    sandboxesByUser,
    conversationsByUser,
    startTasksByUser,
  };
}

/** The key of the single group of an index that orders a whole table. */
const ALL = '';

/** Length-prefixed so no pair of strings can produce another pair's key. */
function pairKey(first: string, second: string): string {
  return `${first.length}:${first}:${second}`;
}

function claimKey(orgId: string, source: string, key: string): string {
  return pairKey(orgId, pairKey(source, key));
}

function linkKey(kind: string, key: string, orgId: string): string {
  return pairKey(kind, pairKey(key, orgId));
}

// The write rules, run against live state by whoever holds the lock (or by seeding).

function insertApiKey(db: Database, row: ApiKeyRecord): void {
  if (db.apiKeys.live.get(row.id) !== undefined) {
    throw new StorageConflictError(`An API key with id ${row.id} already exists`);
  }
  if (db.apiKeys.live.find(db.apiKeysByHash, row.key_hash) !== undefined) {
    throw new StorageConflictError('An API key with this hash already exists');
  }
  db.apiKeys.put(row);
}

function insertWebhook(db: Database, row: WebhookRecord): void {
  if (db.webhooks.live.get(row.id) !== undefined) {
    throw new StorageConflictError(`A webhook with id ${row.id} already exists`);
  }
  assertSourceFree(db, row);
  db.webhooks.put(row);
}

function updateWebhook(db: Database, row: WebhookRecord): boolean {
  const current = db.webhooks.live.get(row.id);
  if (current === undefined || current.org_id !== row.org_id) return false;
  if (current.source !== row.source) assertSourceFree(db, row);
  db.webhooks.put(row);
  return true;
}

function assertSourceFree(db: Database, row: WebhookRecord): void {
  const holder = db.webhooks.live.find(db.webhooksBySource, pairKey(row.org_id, row.source));
  if (holder !== undefined && holder.id !== row.id) {
    throw new StorageConflictError(`The org already has a webhook for source "${row.source}"`);
  }
}

function insertAutomation(db: Database, row: AutomationRecord): void {
  if (db.automations.live.get(row.id) !== undefined) {
    throw new StorageConflictError(`An automation with id ${row.id} already exists`);
  }
  db.automations.put(row);
}

/** All or nothing: every id is checked (against the store and the batch) before any is written. */
function insertRuns(db: Database, rows: readonly RunRecord[]): void {
  const ids = new Set<string>();
  for (const row of rows) {
    if (ids.has(row.id) || db.runs.live.get(row.id) !== undefined) {
      throw new StorageConflictError(`A run with id ${row.id} already exists`);
    }
    ids.add(row.id);
  }
  for (const row of rows) db.runs.put(row);
}

function insertDelivery(db: Database, row: DeliveryRecord): void {
  if (db.deliveries.live.get(row.id) !== undefined) {
    throw new StorageConflictError(`A delivery with id ${row.id} already exists`);
  }
  db.deliveries.put(row);
  // The org is at most one over the limit here, so this evicts one delivery at most.
  while (db.deliveriesByOrg.size(row.org_id) > db.maxDeliveriesPerOrg) {
    const oldest = db.deliveriesByOrg.oldest(row.org_id);
    if (oldest === undefined || !db.deliveries.delete(oldest)) break;
  }
}

function claimDedupKey(db: Database, claim: DedupClaim): string | null {
  const now = instantOf(claim.now);
  pruneDedupClaims(db, now);
  const holder = db.dedupClaims.live.get(claimKey(claim.orgId, claim.source, claim.key));
  // A claim lapses at `expiresAt`: from then on the key is free.
  if (holder !== undefined && instantOf(holder.expires_at) > now) return holder.delivery_id;
  db.dedupClaims.put({
    org_id: claim.orgId,
    source: claim.source,
    key: claim.key,
    delivery_id: claim.deliveryId,
    expires_at: claim.expiresAt,
  });
  return null;
}

/** Drops a few claims that expired by `now`, soonest first; O(1) per claim made. */
function pruneDedupClaims(db: Database, now: number): void {
  for (let n = 0; n < CLAIMS_PRUNED_PER_CLAIM; n += 1) {
    const primaryKey = db.dedupClaimsByExpiry.oldest(ALL);
    const row = primaryKey === undefined ? undefined : db.dedupClaims.live.get(primaryKey);
    if (primaryKey === undefined || row === undefined || instantOf(row.expires_at) > now) return;
    db.dedupClaims.delete(primaryKey);
  }
}

function seed(db: Database, records: MemoryStorageSeed): void {
  for (const record of records.settings ?? []) db.settings.put(cloneJson(record));
  for (const record of records.providerTokens ?? []) db.providerTokens.put(cloneJson(record));
  for (const record of records.apiKeys ?? []) insertApiKey(db, cloneJson(record));
  for (const record of records.webhooks ?? []) insertWebhook(db, cloneJson(record));
  for (const record of records.automations ?? []) insertAutomation(db, cloneJson(record));
  insertRuns(db, (records.runs ?? []).map(cloneJson));
  for (const record of records.deliveries ?? []) insertDelivery(db, cloneJson(record));
  for (const record of records.githubLinks ?? []) db.githubLinks.put(cloneJson(record));
}

function copy<V>(row: V | undefined): V | null {
  return row === undefined ? null : cloneJson(row);
}

/** Only the row of `orgId`: another org's id reads like a missing one. */
function copyOwned<V extends { org_id: string }>(row: V | undefined, orgId: string): V | null {
  return row !== undefined && row.org_id === orgId ? cloneJson(row) : null;
}

function page<V>(rows: OrderedRows<V>, { limit, offset }: ListOptions): ListResult<V> {
  return { items: rows.page(offset, limit).map(cloneJson), total: rows.size };
}

/** Oldest first; ids break ties in code-unit order, like a `COLLATE "C"` database column. */
function byCreation(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  const age = Date.parse(a.created_at) - Date.parse(b.created_at);
  if (age !== 0 && !Number.isNaN(age)) return age;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Inserts a row under a fresh id; `what` names the record in the conflict message. */
function insertNew<V>(table: Table<V>, row: V, what: string): void {
  const id = table.primaryKeyOf(row);
  if (table.live.get(id) !== undefined) throw new StorageConflictError(`${what} with id ${id} already exists`);
  table.put(row);
}

/** Replaces a stored row; false when there is none. */
function replace<V>(table: Table<V>, row: V): boolean {
  if (table.live.get(table.primaryKeyOf(row)) === undefined) return false;
  table.put(row);
  return true;
}

/**
 * Appends to an existing conversation, numbering the events on from the stored count. Runs under
 * the write lock, so concurrent appends never share or skip a `seq`.
 */
function appendEvents(
  db: Database,
  conversationId: string,
  events: readonly Omit<ConversationEvent, 'seq'>[],
): ConversationEvent[] {
  if (db.conversations.live.get(conversationId) === undefined) {
    throw new StorageConflictError(`Cannot append events to unknown conversation ${conversationId}`);
  }
  const start = db.events.live.size(conversationId);
  const rows = events.map((event, n) => ({ ...event, conversation_id: conversationId, seq: start + n }));
  db.events.append(conversationId, rows);
  return rows.map(cloneJson);
}

function invalidPage(field: 'page_id' | 'limit', msg: string): PlatformError {
  return new PlatformError('VALIDATION_FAILED', `invalid ${field}`, {
    issues: [{ loc: ['query', field], msg, type: 'value_error' }],
  });
}

function checkLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw invalidPage('limit', 'limit must be a positive integer');
  return limit;
}

/** Where a newest-first page ended: the last item's instant (null: unparsable) and id. */
type Cursor = readonly [at: number | null, id: string];

function encodeCursor(row: { created_at: string; id: string }): string {
  const at = instantOf(row.created_at);
  const cursor: Cursor = [Number.isFinite(at) ? at : null, row.id];
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function decodeCursor(pageId: string): { at: number; id: string } {
  let cursor: unknown;
  try {
    cursor = JSON.parse(Buffer.from(pageId, 'base64url').toString('utf8'));
  } catch {
    cursor = undefined;
  }
  if (
    !Array.isArray(cursor) ||
    cursor.length !== 2 ||
    !(cursor[0] === null || Number.isSafeInteger(cursor[0])) ||
    typeof cursor[1] !== 'string'
  ) {
    throw invalidPage('page_id', 'invalid page id');
  }
  return { at: cursor[0] === null ? Number.NEGATIVE_INFINITY : (cursor[0] as number), id: cursor[1] };
}

/**
 * A newest-first keyset page: the rows after the cursor in reading order (lower instant, or the
 * same instant and a lower id), found by binary search.
 */
function cursorPage<V extends { created_at: string; id: string }>(rows: OrderedRows<V>, options: CursorOptions): CursorPage<V> {
  const limit = checkLimit(options.limit);
  let start = 0;
  if (options.pageId !== undefined) {
    const cursor = decodeCursor(options.pageId);
    const isAfter = (row: V): boolean => {
      const at = instantOf(row.created_at);
      return at < cursor.at || (at === cursor.at && row.id < cursor.id);
    };
    let high = rows.size;
    while (start < high) {
      const middle = (start + high) >>> 1;
      const row = rows.at(middle);
      if (row !== undefined && isAfter(row)) high = middle;
      else start = middle + 1;
    }
  }
  const items = rows.page(start, limit);
  const last = items.at(-1);
  return {
    items: items.map(cloneJson),
    nextPageId: last !== undefined && start + items.length < rows.size ? encodeCursor(last) : null,
  };
}

/** A conversation's events from the `seq` named by `pageId`, in `seq` order. */
function eventsPage(log: AppendLogView<ConversationEvent>, conversationId: string, options: CursorOptions): CursorPage<ConversationEvent> {
  const limit = checkLimit(options.limit);
  let start = 0;
  if (options.pageId !== undefined) {
    if (!/^(0|[1-9][0-9]{0,14})$/.test(options.pageId)) throw invalidPage('page_id', 'invalid page id');
    start = Number(options.pageId);
  }
  const size = log.size(conversationId);
  const items = log.slice(conversationId, start, start + limit);
  const end = start + items.length;
  return { items: items.map(cloneJson), nextPageId: items.length > 0 && end < size ? String(end) : null };
}

function createRepositories(db: Database, access: Access): StorageRepositories {
  const view = <T>(source: { readonly live: T; readonly committed: T }): T => {
    access.check();
    return source[access.view];
  };

  return {
    settings: {
      async get(userId) {
        return copy(view(db.settings).get(userId));
      },
      async put(record) {
        // Copied before queueing, so changes the caller makes while the write waits do not land.
        const row = cloneJson(record);
        await access.write(() => db.settings.put(row));
      },
    },

    providerTokens: {
      async get(userId) {
        return copy(view(db.providerTokens).get(userId));
      },
      async put(record) {
        const row = cloneJson(record);
        await access.write(() => db.providerTokens.put(row));
      },
      async delete(userId) {
        await access.write(() => db.providerTokens.delete(userId));
      },
    },

    apiKeys: {
      async insert(record) {
        const row = cloneJson(record);
        await access.write(() => insertApiKey(db, row));
      },
      async get(id) {
        return copy(view(db.apiKeys).get(id));
      },
      async getByHash(keyHash) {
        return copy(view(db.apiKeys).find(db.apiKeysByHash, keyHash));
      },
      async listByUser(userId) {
        return view(db.apiKeys).group(db.apiKeysByUser, userId).sort(byCreation).map(cloneJson);
      },
      async touch(id, at) {
        await access.write(() => {
          const current = db.apiKeys.live.get(id);
          // A new object, never an in-place edit: the undo log may hold `current` as a pre-image.
          if (current !== undefined) db.apiKeys.put({ ...current, last_used_at: at });
        });
      },
      async delete(id) {
        return access.write(() => db.apiKeys.delete(id));
      },
    },

    webhooks: {
      async insert(record) {
        const row = cloneJson(record);
        await access.write(() => insertWebhook(db, row));
      },
      async get(orgId, id) {
        return copyOwned(view(db.webhooks).get(id), orgId);
      },
      async getBySource(orgId, source) {
        return copy(view(db.webhooks).find(db.webhooksBySource, pairKey(orgId, source)));
      },
      async list(orgId, { limit, offset }) {
        const rows = view(db.webhooks).group(db.webhooksByOrg, orgId).sort(byCreation);
        return { items: rows.slice(offset, offset + limit).map(cloneJson), total: rows.length };
      },
      async update(record) {
        const row = cloneJson(record);
        return access.write(() => updateWebhook(db, row));
      },
      async delete(orgId, id) {
        return access.write(() => {
          const current = db.webhooks.live.get(id);
          return current !== undefined && current.org_id === orgId && db.webhooks.delete(id);
        });
      },
    },

    automations: {
      async insert(record) {
        const row = cloneJson(record);
        await access.write(() => insertAutomation(db, row));
      },
      async get(orgId, id) {
        return copyOwned(view(db.automations).get(id), orgId);
      },
      async list(orgId, options) {
        return page(view(db.automations).ordered(db.automationsByOrg, orgId), options);
      },
      async listEnabledBySource(orgId, source) {
        return view(db.automations).group(db.enabledAutomationsBySource, pairKey(orgId, source)).map(cloneJson);
      },
      async update(record) {
        const row = cloneJson(record);
        return access.write(() => {
          const current = db.automations.live.get(row.id);
          if (current === undefined || current.org_id !== row.org_id) return false;
          db.automations.put(row);
          return true;
        });
      },
      async markTriggered(orgId, ids, at) {
        const targets = [...ids];
        await access.write(() => {
          for (const id of targets) {
            const current = db.automations.live.get(id);
            // A new object, never an in-place edit: the undo log may hold `current` as a pre-image.
            if (current !== undefined && current.org_id === orgId) {
              db.automations.put({ ...current, last_triggered_at: at });
            }
          }
        });
      },
      async delete(orgId, id) {
        return access.write(() => {
          const current = db.automations.live.get(id);
          return current !== undefined && current.org_id === orgId && db.automations.delete(id);
        });
      },
    },

    runs: {
      async insertMany(records) {
        const rows = records.map(cloneJson);
        await access.write(() => insertRuns(db, rows));
      },
      async get(orgId, id) {
        return copyOwned(view(db.runs).get(id), orgId);
      },
      async listByAutomation(orgId, automationId, options) {
        return page(view(db.runs).ordered(db.runsByAutomation, pairKey(orgId, automationId)), options);
      },
      async listByStatus(status, limit) {
        return view(db.runs).ordered(db.runsByStatus, status).page(0, limit).map(cloneJson);
      },
      async update(record) {
        const row = cloneJson(record);
        return access.write(() => {
          const current = db.runs.live.get(row.id);
          if (current === undefined || current.org_id !== row.org_id) return false;
          db.runs.put(row);
          return true;
        });
      },
    },

    deliveries: {
      async insert(record) {
        const row = cloneJson(record);
        await access.write(() => insertDelivery(db, row));
      },
      async get(orgId, id) {
        return copyOwned(view(db.deliveries).get(id), orgId);
      },
      async list(orgId, { limit, offset, source, status }) {
        const rows = view(db.deliveries).ordered(db.deliveriesByOrg, orgId);
        if (source === undefined && status === undefined) return page(rows, { limit, offset });
        const items: DeliveryRecord[] = [];
        let total = 0;
        for (const row of rows.all()) {
          if ((source !== undefined && row.source !== source) || (status !== undefined && row.status !== status)) continue;
          if (total >= offset && items.length < limit) items.push(cloneJson(row));
          total += 1;
        }
        return { items, total };
      },
      async claimDedupKey(claim) {
        const request = { ...claim };
        return access.write(() => claimDedupKey(db, request));
      },
    },

    githubLinks: {
      async put(record) {
        const row = cloneJson(record);
        await access.write(() => db.githubLinks.put(row));
      },
      async delete(kind, key, orgId) {
        return access.write(() => db.githubLinks.delete(linkKey(kind, key, orgId)));
      },
      async findOrgs(refs) {
        const links = view(db.githubLinks);
        const orgs = new Set<string>();
        for (const ref of refs) {
          for (const link of links.group(db.githubLinksByRef, pairKey(ref.kind, ref.key))) orgs.add(link.org_id);
        }
        return [...orgs];
      },
      async listByOrg(orgId) {
        return view(db.githubLinks).ordered(db.githubLinksByOrg, orgId).all().map(cloneJson);
      },
    },

    sandboxes: {
      async insert(record) {
        const row = cloneJson(record);
        await access.write(() => insertNew(db.sandboxes, row, 'A sandbox'));
      },
      async get(id) {
        return copy(view(db.sandboxes).get(id));
      },
      async listByUser(userId, options) {
        return cursorPage(view(db.sandboxes).ordered(db.sandboxesByUser, userId), options);
      },
      async update(record) {
        const row = cloneJson(record);
        return access.write(() => replace(db.sandboxes, row));
      },
      async delete(id) {
        return access.write(() => db.sandboxes.delete(id));
      },
    },

    conversations: {
      async insert(record) {
        const row = cloneJson(record);
        await access.write(() => insertNew(db.conversations, row, 'A conversation'));
      },
      async get(id) {
        return copy(view(db.conversations).get(id));
      },
      async listByUser(userId, options) {
        return cursorPage(view(db.conversations).ordered(db.conversationsByUser, userId), options);
      },
      async update(record) {
        const row = cloneJson(record);
        return access.write(() => replace(db.conversations, row));
      },
      async appendEvents(conversationId, events) {
        const rows = events.map(cloneJson);
        return access.write(() => appendEvents(db, conversationId, rows));
      },
      async listEvents(conversationId, options) {
        return eventsPage(view(db.events), conversationId, options);
      },
    },

    startTasks: {
      async insert(record) {
        const row = cloneJson(record);
        await access.write(() => insertNew(db.startTasks, row, 'A start task'));
      },
      async get(id) {
        return copy(view(db.startTasks).get(id));
      },
      async listByUser(userId, options) {
        return cursorPage(view(db.startTasks).ordered(db.startTasksByUser, userId), options);
      },
      async update(record) {
        const row = cloneJson(record);
        return access.write(() => replace(db.startTasks, row));
      },
    },
  };
}
