/**
 * A cache of {@link SourceIndex} per (org, source). Built from storage on first use and dropped
 * at once when an automation of that org and source changes — through this process, or through
 * another one sharing the storage, which says so on the storage's change feed (the platform
 * wires that up in `start()`). After `ttlMs` it is also rebuilt in the background, the safety net
 * should a change be missed; events keep using the old index while the new one is built, so no
 * event waits for a rebuild (with 100,000 automations in one org and source, a rebuild takes
 * about a second).
 * @module
 */
import { LruMap } from '../kernel/lru-map.js';
import type { Clock } from '../ports/clock.js';
import type { StorageAdapter } from '../ports/storage.js';
import { SourceIndex } from './source-index.js';

export interface AutomationIndexOptions {
  /**
   * How long an index is trusted before it is rebuilt from storage, in ms: the longest a change
   * made by another process takes to be seen should its change-feed announcement be lost.
   * Default 30 s.
   */
  ttlMs?: number;
  /** How many (org, source) indexes are kept at most; the least recently used go first. Default 10,000. */
  maxEntries?: number;
}

interface Entry {
  index: SourceIndex;
  builtAt: number;
  /** Bumped by invalidation, so a build that started before it is not cached. */
  generation: number;
}

const cacheKey = (orgId: string, source: string) => `${orgId}\u0000${source}`;

export class AutomationIndex {
  private readonly entries: LruMap<Entry>;
  private readonly building = new Map<string, Promise<SourceIndex>>();
  private readonly generations = new Map<string, number>();
  private readonly ttlMs: number;

  constructor(
    private readonly storage: StorageAdapter,
    private readonly clock: Clock,
    options: AutomationIndexOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.entries = new LruMap(options.maxEntries ?? 10_000);
  }

  /** The index of the org's enabled automations for `source`. */
  get(orgId: string, source: string): Promise<SourceIndex> | SourceIndex {
    const key = cacheKey(orgId, source);
    const entry = this.entries.get(key);
    if (entry) {
      if (this.clock.now().getTime() - entry.builtAt >= this.ttlMs && !this.building.has(key)) {
        // Stale: rebuild in the background and answer from the old index meanwhile.
        this.build(key, orgId, source).catch(() => {
          // A failed background rebuild keeps the old index; the next event retries.
        });
      }
      return entry.index;
    }
    return this.building.get(key) ?? this.build(key, orgId, source);
  }

  /** Drops the index of one org and source (call after changing one of its automations). */
  invalidate(orgId: string, source: string): void {
    const key = cacheKey(orgId, source);
    this.entries.delete(key);
    this.building.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
  }

  /** Drops every index (changes may have been missed); each is rebuilt on its next event. */
  invalidateAll(): void {
    for (const key of new Set([...this.entries.keys(), ...this.building.keys()])) {
      this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    }
    this.entries.clear();
    this.building.clear();
  }

  private build(key: string, orgId: string, source: string): Promise<SourceIndex> {
    const generation = this.generations.get(key) ?? 0;
    const builtAt = this.clock.now().getTime();
    const promise = this.storage.automations.listEnabledBySource(orgId, source).then(
      (records) => {
        const index = new SourceIndex(records);
        if (this.building.get(key) === promise) this.building.delete(key);
        if ((this.generations.get(key) ?? 0) === generation) {
          this.entries.set(key, { index, builtAt, generation });
        }
        return index;
      },
      (error: unknown) => {
        if (this.building.get(key) === promise) this.building.delete(key);
        throw error;
      },
    );
    this.building.set(key, promise);
    return promise;
  }
}
