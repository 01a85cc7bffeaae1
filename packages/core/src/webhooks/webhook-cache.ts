/**
 * The webhook source lookup of inbound events, cached with its secrets already opened: without
 * it every delivery paid a storage round trip and an AES-GCM open before its signature could be
 * checked. Kept fresh like the matching index: dropped at once when a webhook of the org changes
 * (in this process directly, in others through the change feed's `webhooks.changed`), and
 * re-read after `ttlMs` should an announcement be lost. Unknown sources are never cached, so
 * made-up source names cannot crowd real ones out.
 * @module
 */
import { LruMap } from '../kernel/lru-map.js';
import type { Clock } from '../ports/clock.js';
import type { StorageAdapter } from '../ports/storage.js';
import type { SecretBox } from '../ports/secret-box.js';
import type { WebhookRecord } from '../schemas/webhook.js';

/** What ingest needs of a source: its record, and its secrets opened. */
export interface CachedWebhook {
  record: WebhookRecord;
  current: string;
  /** The previous secret, opened, while its grace period may still run (checked at use). */
  previous: string | null;
}

export interface WebhookCacheOptions {
  /** How long an entry is trusted without an announcement, in ms. Default 5 s. */
  ttlMs?: number;
  /** Most entries kept; the least recently used go first. Default 10,000. */
  maxEntries?: number;
}

interface Entry {
  webhook: CachedWebhook;
  cachedAt: number;
}

const keyOf = (orgId: string, source: string) => `${orgId}\u0000${source}`;

export class WebhookCache {
  private readonly entries: LruMap<Entry>;
  /** Bumped per org by invalidation, so a read that began before it is not cached. */
  private readonly generations = new Map<string, number>();
  private generationAll = 0;
  private readonly ttlMs: number;

  constructor(
    private readonly storage: StorageAdapter,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    options: WebhookCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5_000;
    this.entries = new LruMap(options.maxEntries ?? 10_000);
  }

  /** The source's webhook, enabled or not; `null` when there is none. */
  async get(orgId: string, source: string): Promise<CachedWebhook | null> {
    const key = keyOf(orgId, source);
    const now = this.clock.now().getTime();
    const entry = this.entries.get(key);
    if (entry && now - entry.cachedAt < this.ttlMs) return entry.webhook;
    const generation = this.generation(orgId);
    const record = await this.storage.webhooks.getBySource(orgId, source);
    if (!record) {
      this.entries.delete(key);
      return null;
    }
    const webhook: CachedWebhook = {
      record,
      current: this.secrets.open(record.secret),
      previous: record.previous_secret ? this.secrets.open(record.previous_secret) : null,
    };
    if (this.generation(orgId) === generation) this.entries.set(key, { webhook, cachedAt: now });
    return webhook;
  }

  /** A webhook of `orgId` was registered, changed, rotated or deleted. */
  invalidateOrg(orgId: string): void {
    this.generations.set(orgId, (this.generations.get(orgId) ?? 0) + 1);
    this.entries.deletePrefix(`${orgId}\u0000`);
  }

  /** Changes may have been missed (the change feed reconnected): forget everything. */
  invalidateAll(): void {
    this.generationAll += 1;
    this.entries.clear();
  }

  private generation(orgId: string): string {
    return `${this.generationAll}:${this.generations.get(orgId) ?? 0}`;
  }
}
