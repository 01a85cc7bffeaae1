/**
 * Which orgs a GitHub delivery reaches, cached: without it every delivery paid a storage round
 * trip (a statement on PostgreSQL) before it could be matched, though links change once in a
 * blue moon. Kept fresh like the webhook cache: forgotten at once when a link is made or removed
 * (in this process directly, in others through the change feed's `github-links.changed`), and read
 * again after `ttlMs` should an announcement be lost.
 * @module
 */
import { LruMap } from '../kernel/lru-map.js';
import type { Clock } from '../ports/clock.js';
import type { GithubDeliveryInfo, GithubOrgResolver } from './github-delivery.js';

export interface GithubOrgCacheOptions {
  /** How long an answer is trusted without an announcement, in ms. Default 5 s. */
  ttlMs?: number;
  /** Most answers kept; the least recently used go first. Default 10,000. */
  maxEntries?: number;
}

interface Entry {
  orgs: readonly string[];
  cachedAt: number;
}

/** What the stored links are looked up by: the installation and the accounts, in order. */
const keyOf = (delivery: Readonly<GithubDeliveryInfo>): string => JSON.stringify([delivery.installationId, delivery.accounts]);

export class GithubOrgCache {
  private readonly entries: LruMap<Entry>;
  /** Bumped by invalidation, so a lookup that began before it is not cached. */
  private generation = 0;
  private readonly ttlMs: number;

  constructor(
    private readonly lookup: GithubOrgResolver,
    private readonly clock: Clock,
    options: GithubOrgCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5_000;
    this.entries = new LruMap(options.maxEntries ?? 10_000);
  }

  /** The resolver ingest calls. */
  readonly resolve: GithubOrgResolver = async (delivery) => {
    const key = keyOf(delivery);
    const now = this.clock.now().getTime();
    const entry = this.entries.get(key);
    if (entry && now - entry.cachedAt < this.ttlMs) return entry.orgs;
    const generation = this.generation;
    const orgs = [...(await this.lookup(delivery))];
    if (this.generation === generation) this.entries.set(key, { orgs, cachedAt: now });
    return orgs;
  };

  /** A link was made or removed, here or in another process (or changes may have been missed). */
  invalidateAll(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
