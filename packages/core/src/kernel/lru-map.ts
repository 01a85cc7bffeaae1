/**
 * A map that keeps at most `maxEntries` entries, dropping the least recently used first: the
 * caches in front of storage (webhook sources, matching indexes, GitHub org links) use it, each
 * with its own rules for freshness and invalidation on top.
 * @module
 */
export class LruMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  /** The entry, now the most recently used; `undefined` when there is none. */
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // A Map iterates in insertion order: taking the entry out and back in makes it the newest.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Sets the entry as the most recently used, dropping the least recently used beyond the bound. */
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose key starts with `prefix`. */
  deletePrefix(prefix: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
