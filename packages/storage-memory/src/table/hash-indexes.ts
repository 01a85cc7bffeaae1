/**
 * Indexes kept in a `Map` from key to primary keys, for lookups by equality: one row per key, or
 * an unordered group of rows per key.
 *
 * An index key function may return `undefined` to leave a row out of the index (e.g. only
 * enabled automations are indexed by source).
 * @module
 */

/** At most one row per key, e.g. an API key by its hash. */
export class UniqueIndex<V> {
  readonly #primaryKeys = new Map<string, string>();

  constructor(readonly keyOf: (row: V) => string | undefined) {}

  get(key: string): string | undefined {
    return this.#primaryKeys.get(key);
  }

  add(row: V, primaryKey: string): void {
    const key = this.keyOf(row);
    if (key !== undefined) this.#primaryKeys.set(key, primaryKey);
  }

  remove(row: V, primaryKey: string): void {
    const key = this.keyOf(row);
    // A row only drops an entry it holds, so a stale row can never unindex the key's real owner.
    if (key !== undefined && this.#primaryKeys.get(key) === primaryKey) this.#primaryKeys.delete(key);
  }

  move(previous: V, row: V, primaryKey: string): void {
    if (this.keyOf(previous) === this.keyOf(row)) return;
    this.remove(previous, primaryKey);
    this.add(row, primaryKey);
  }
}

/** Many rows per key, in no order, e.g. a user's API keys. */
export class GroupIndex<V> {
  readonly #groups = new Map<string, Set<string>>();

  constructor(readonly keyOf: (row: V) => string | undefined) {}

  get(key: string): ReadonlySet<string> {
    return this.#groups.get(key) ?? EMPTY;
  }

  add(row: V, primaryKey: string): void {
    const key = this.keyOf(row);
    if (key === undefined) return;
    const group = this.#groups.get(key);
    if (group) group.add(primaryKey);
    else this.#groups.set(key, new Set([primaryKey]));
  }

  remove(row: V, primaryKey: string): void {
    const key = this.keyOf(row);
    if (key === undefined) return;
    const group = this.#groups.get(key);
    if (!group) return;
    group.delete(primaryKey);
    // Drop empty groups so churn over short-lived users and orgs does not leak memory.
    if (group.size === 0) this.#groups.delete(key);
  }

  move(previous: V, row: V, primaryKey: string): void {
    if (this.keyOf(previous) === this.keyOf(row)) return;
    this.remove(previous, primaryKey);
    this.add(row, primaryKey);
  }
}

const EMPTY: ReadonlySet<string> = new Set();
