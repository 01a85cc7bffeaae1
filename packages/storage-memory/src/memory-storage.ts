/**
 * An in-memory {@link StorageAdapter}, for tests, examples and single-process deployments that
 * can lose their data on restart.
 *
 * - Records are deep-copied on the way in and out, so callers never share objects with the store.
 * - Writes, transactions and run queue operations take one async mutex, so transactions run one
 *   after another and neither a write from outside nor a claim ever lands in the middle of one.
 *   Reads outside a transaction take no lock: they read the last committed state, which the undo
 *   log keeps at hand.
 * - A transaction writes in place and logs the pre-image of each row it touches; rollback puts
 *   those back. Its cost grows with the rows it touches, not with the size of the store.
 * - Every lookup is indexed (see `database/`), so no operation scans other orgs' records: API
 *   keys by hash and by user; webhooks by (org, source) and by org; automations by org, and the
 *   enabled ones by (org, trigger source), so `listEnabledBySource` costs O(the automations it
 *   returns); runs by (org, automation), by status (across orgs), so `listByStatus` costs
 *   O(limit) and never touches runs in other statuses, and the RUNNING ones by org, so the run
 *   queue counts an org's RUNNING runs in O(1); deliveries by org; dedup claims by (org, source,
 *   key) and by expiry; GitHub links by (kind, key) and by org; sandboxes, conversations and
 *   start tasks by user; conversation events by conversation. Flow control reads an
 *   automation's live runs by concurrency key (and the RUNNING ones with a key, so a claim
 *   tells a busy key in O(1)) and counts its runs created since a time by binary search.
 *   Subscriptions are indexed by org (the enabled ones apart), outbound messages by
 *   subscription (and by subscription and status), and the pending ones across orgs by due
 *   time, for senders' claims.
 * - Ordered lists (automations, runs, deliveries, GitHub links, sandboxes, conversations, start
 *   tasks) are kept sorted inside their index: records arriving in time order are appended in
 *   O(1), others take a binary search. A page then costs O(offset + limit), never a sort of the
 *   org's records; a delivery list filtered by source or status scans the org's deliveries.
 * - Cursor pages (`CursorOptions`) are keyset pages with core's page ids: a `pageId` names the
 *   last item of the page before (its `created_at` as stored and its id), and the next page starts
 *   right after it — by instant, then id — found by binary search, so records inserted or deleted
 *   between pages never make one repeat or skip. A conversation's events are an append-only array
 *   whose index is `seq`; their `pageId` is the next `seq`. A `pageId` no adapter hands out (or a
 *   `limit` that is not a positive integer) throws a `PlatformError` `VALIDATION_FAILED`.
 * - Runs change only through `runs.transition`, a compare-and-set under the write lock with
 *   core's rules; outbound messages only through `outboundMessages.transition` and the leases
 *   `claimDue` writes, under the same lock. Deleting a subscription deletes its messages in the
 *   same step. The run queue (`runQueue`, see `run-queue.ts`) claims, renews, recovers,
 *   completes and releases runs under that same lock.
 * - The change feed (`changes`) lives in this process: each store has its own, and the adapter
 *   publishes nothing by itself — whoever changes something announces it.
 * - Memory stays bounded where records pile up: the store keeps at most
 *   {@link MemoryStorageOptions.maxDeliveries} deliveries across orgs and an org at most
 *   {@link MemoryStorageOptions.maxDeliveriesPerOrg} (the oldest are evicted, O(1) amortised per
 *   insert), and expired dedup claims are pruned a few at a time by later claims. Dedup claims
 *   are kept apart from deliveries, so evicting a delivery never frees its dedup key early. Runs
 *   are not evicted.
 * - With either bound set (the default), a delivery's payload of 4 KB or more is kept as its
 *   UTF-8 bytes outside the V8 heap, in blocks that evicted deliveries hand on to new ones
 *   (`database/stored-text.ts`), and turned back into the string on reads; a payload with a
 *   lone surrogate stays a string, so every record reads back exactly as written. Retained
 *   payloads then cost the garbage collector almost nothing: under load over HTTP the reference
 *   server's GC share fell from 17.5 % to 7 % of its CPU time.
 * @module
 */
import { StorageUnavailableError } from '@agent-platform/core';
import { createLocalChangeFeed } from '@agent-platform/core/adapter-kit';
import type {
  ApiKeyRecord,
  AutomationRecord,
  DeliveryRecord,
  GithubLinkRecord,
  ProviderTokensRecord,
  RunRecord,
  SettingsRecord,
  StorageAdapter,
  WebhookRecord,
} from '@agent-platform/core';
import type { Access } from './database/access.js';
import { cloneJson } from './database/clone-json.js';
import { createDatabase, type Database } from './database/database.js';
import { Mutex } from './mutex.js';
import { insertApiKey } from './repositories/api-keys.js';
import { insertAutomation } from './repositories/automations.js';
import { insertDelivery } from './repositories/deliveries.js';
import { createRepositories } from './repositories/index.js';
import { insertRuns } from './repositories/runs.js';
import { insertWebhook } from './repositories/webhooks.js';
import { createRunQueue } from './run-queue.js';

export const DRIVER_NAME = 'memory';

/**
 * Default of {@link MemoryStorageOptions.maxDeliveries}: 10,000 deliveries, about 250 MB at
 * ~25 KB of payload each (a GitHub `pull_request` event is 20–30 KB). Measured with 21 KB
 * `pull_request.opened` payloads: 270 MB of RSS once full, of which 215 MB are the payloads'
 * bytes (outside the V8 heap) and 17 MB the rest of the rows, so a demo left running on a
 * 1 GB machine stays well inside it, however many orgs it serves. It is still twenty pages of
 * 50 in the delivery log for each of ten busy orgs.
 */
export const DEFAULT_MAX_DELIVERIES = 10_000;

/**
 * Default of {@link MemoryStorageOptions.maxDeliveriesPerOrg}: 1,000 (about 25 MB at ~25 KB), a
 * tenth of {@link DEFAULT_MAX_DELIVERIES}: one busy org fills at most a tenth of the store, so it
 * cannot push out every other org's recent deliveries, and a single-org demo keeps twenty pages
 * of its log.
 */
export const DEFAULT_MAX_DELIVERIES_PER_ORG = 1_000;

/** Records to start with, written as if inserted one by one (conflicts throw). */
export interface MemoryStorageSeed {
  settings?: readonly SettingsRecord[];
  providerTokens?: readonly ProviderTokensRecord[];
  apiKeys?: readonly ApiKeyRecord[];
  webhooks?: readonly WebhookRecord[];
  automations?: readonly AutomationRecord[];
  runs?: readonly RunRecord[];
  /** Subject to {@link MemoryStorageOptions.maxDeliveries} and `maxDeliveriesPerOrg` like any insert. */
  deliveries?: readonly DeliveryRecord[];
  githubLinks?: readonly GithubLinkRecord[];
}

export interface MemoryStorageOptions {
  /** Records the store starts with, e.g. a fixed API key for a demo server. */
  seed?: MemoryStorageSeed;
  /**
   * Most deliveries kept in all, across orgs; default {@link DEFAULT_MAX_DELIVERIES} (10,000),
   * `Infinity` for no limit. An insert (`deliveries.insert`, `recordDelivery`, a seed record)
   * that takes the store past it evicts the oldest delivery of any org (lowest `received_at`,
   * then lowest id, in code-unit order) — the inserted one itself, if it is the oldest. Memory
   * then stays near `maxDeliveries` × the payload size (~25 KB for a GitHub pull request event:
   * 250 MB at the default).
   *
   * Eviction is a write like any other: a rolled-back transaction restores what it evicted. An
   * evicted delivery reads as missing (`get` null, gone from lists and totals), its id may be
   * inserted again, its dedup claim lives on until `expiresAt` (a redelivery is still
   * recognised), and runs created for it stay (a run executed after its delivery is gone gets
   * no payload).
   */
  maxDeliveries?: number;
  /**
   * Most deliveries kept per org; default {@link DEFAULT_MAX_DELIVERIES_PER_ORG} (1,000),
   * `Infinity` for no limit. An insert that takes an org past it evicts that org's oldest
   * delivery (same order and rules as {@link maxDeliveries}), so one busy org cannot evict
   * everyone else's history. Both bounds hold at once; a filtered delivery list scans at most
   * this many deliveries.
   */
  maxDeliveriesPerOrg?: number;
}

/**
 * Creates an empty (or seeded) in-memory store.
 *
 * Inside `transaction(fn)`, use only the `tx` repositories for writes: a write through the
 * adapter itself (or its run queue) waits for the transaction to finish, and the transaction
 * waits for it.
 *
 * @throws RangeError when `maxDeliveries` or `maxDeliveriesPerOrg` is not a positive integer (or `Infinity`).
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): StorageAdapter {
  const db = createDatabase({
    maxDeliveries: bound('maxDeliveries', options.maxDeliveries, DEFAULT_MAX_DELIVERIES),
    maxDeliveriesPerOrg: bound('maxDeliveriesPerOrg', options.maxDeliveriesPerOrg, DEFAULT_MAX_DELIVERIES_PER_ORG),
  });
  const mutex = new Mutex();
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new StorageUnavailableError('The memory storage is closed');
  };

  if (options.seed) seed(db, options.seed);

  // The adapter's own access: committed reads, and writes that wait their turn for the lock.
  const access: Access = {
    view: 'committed',
    check: assertOpen,
    write: (op) =>
      mutex.run(() => {
        assertOpen();
        return op();
      }),
  };
  const repositories = createRepositories(db, access);

  return {
    name: DRIVER_NAME,
    ...repositories,
    runQueue: createRunQueue(db, access, repositories.runs),
    changes: createLocalChangeFeed(),

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
        for (const table of db.transactional) table.begin();
        try {
          const result = await fn(tx);
          for (const table of db.transactional) table.commit();
          return result;
        } catch (error) {
          for (const table of db.transactional) table.rollback();
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

/** A bound as given (a positive integer or `Infinity`), or its default when not given. */
function bound(name: string, value: number | undefined, fallback: number): number {
  const max = value ?? fallback;
  if (!(max >= 1) || (!Number.isInteger(max) && max !== Infinity)) throw new RangeError(`${name} must be a positive integer or Infinity, got ${max}`);
  return max;
}

/** Writes the seed records through the same rules as inserts, before anyone can read the store. */
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
