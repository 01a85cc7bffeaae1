/**
 * An in-memory table: rows by primary key, secondary indexes kept in step with every write,
 * and an undo log of the rows the running transaction changed.
 *
 * Stored rows are never mutated, only replaced, so the undo log can keep the very objects it
 * saw as pre-images. Those pre-images also make up the committed state, which lets readers
 * outside the transaction skip its uncommitted writes without taking the lock.
 * @module
 */

/** At most one row per key, e.g. an API key by its hash. */
export class UniqueIndex<V> {
  readonly #primaryKeys = new Map<string, string>();

  constructor(readonly keyOf: (row: V) => string) {}

  get(key: string): string | undefined {
    return this.#primaryKeys.get(key);
  }

  add(row: V, primaryKey: string): void {
    this.#primaryKeys.set(this.keyOf(row), primaryKey);
  }

  remove(row: V, primaryKey: string): void {
    const key = this.keyOf(row);
    // A row only drops an entry it holds, so a stale row can never unindex the key's real owner.
    if (this.#primaryKeys.get(key) === primaryKey) this.#primaryKeys.delete(key);
  }
}

/** Many rows per key, e.g. a user's API keys. */
export class GroupIndex<V> {
  readonly #groups = new Map<string, Set<string>>();

  constructor(readonly keyOf: (row: V) => string) {}

  get(key: string): ReadonlySet<string> {
    return this.#groups.get(key) ?? EMPTY;
  }

  add(row: V, primaryKey: string): void {
    const key = this.keyOf(row);
    const group = this.#groups.get(key);
    if (group) group.add(primaryKey);
    else this.#groups.set(key, new Set([primaryKey]));
  }

  remove(row: V, primaryKey: string): void {
    const key = this.keyOf(row);
    const group = this.#groups.get(key);
    if (!group) return;
    group.delete(primaryKey);
    // Drop empty groups so churn over short-lived users and orgs does not leak memory.
    if (group.size === 0) this.#groups.delete(key);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

type Index<V> = UniqueIndex<V> | GroupIndex<V>;

/** Read access to one state of a table: the live rows, or the last committed ones. */
export interface TableView<V> {
  get(primaryKey: string): V | undefined;
  find(index: UniqueIndex<V>, key: string): V | undefined;
  group(index: GroupIndex<V>, key: string): V[];
}

export class Table<V> {
  readonly #rows = new Map<string, V>();
  readonly #indexes: readonly Index<V>[];
  /** Pre-image of every row the running transaction wrote (`undefined`: it did not exist). */
  #undo: Map<string, V | undefined> | null = null;

  /** Rows as they are now, including the running transaction's writes. */
  readonly live: TableView<V>;
  /** Rows as last committed; what readers outside the running transaction see. */
  readonly committed: TableView<V>;

  constructor(
    readonly primaryKeyOf: (row: V) => string,
    indexes: readonly Index<V>[] = [],
  ) {
    this.#indexes = indexes;
    this.live = {
      get: (primaryKey) => this.#rows.get(primaryKey),
      find: (index, key) => {
        const primaryKey = index.get(key);
        return primaryKey === undefined ? undefined : this.#rows.get(primaryKey);
      },
      group: (index, key) => {
        const rows: V[] = [];
        for (const primaryKey of index.get(key)) {
          const row = this.#rows.get(primaryKey);
          if (row !== undefined) rows.push(row);
        }
        return rows;
      },
    };
    this.committed = {
      get: (primaryKey) => {
        const undo = this.#undo;
        return undo?.has(primaryKey) ? undo.get(primaryKey) : this.#rows.get(primaryKey);
      },
      find: (index, key) => {
        const undo = this.#undo;
        if (!undo) return this.live.find(index, key);
        const primaryKey = index.get(key);
        if (primaryKey !== undefined && !undo.has(primaryKey)) return this.#rows.get(primaryKey);
        // The committed holder of `key`, if the transaction changed it, is among the pre-images.
        for (const row of undo.values()) if (row !== undefined && index.keyOf(row) === key) return row;
        return undefined;
      },
      group: (index, key) => {
        const undo = this.#undo;
        if (!undo) return this.live.group(index, key);
        const rows: V[] = [];
        for (const primaryKey of index.get(key)) {
          const row = this.#rows.get(primaryKey);
          if (row !== undefined && !undo.has(primaryKey)) rows.push(row);
        }
        for (const row of undo.values()) if (row !== undefined && index.keyOf(row) === key) rows.push(row);
        return rows;
      },
    };
  }

  /** Inserts or replaces the row under its primary key. The table keeps `row`: pass a private copy. */
  put(row: V): void {
    const primaryKey = this.primaryKeyOf(row);
    const previous = this.#rows.get(primaryKey);
    this.#remember(primaryKey, previous);
    if (previous !== undefined) for (const index of this.#indexes) index.remove(previous, primaryKey);
    this.#rows.set(primaryKey, row);
    for (const index of this.#indexes) index.add(row, primaryKey);
  }

  /** True when a row was deleted. */
  delete(primaryKey: string): boolean {
    const previous = this.#rows.get(primaryKey);
    if (previous === undefined) return false;
    this.#remember(primaryKey, previous);
    for (const index of this.#indexes) index.remove(previous, primaryKey);
    this.#rows.delete(primaryKey);
    return true;
  }

  begin(): void {
    this.#undo = new Map();
  }

  commit(): void {
    this.#undo = null;
  }

  rollback(): void {
    const undo = this.#undo;
    this.#undo = null;
    if (!undo) return;
    // Unindex every changed row before re-indexing any pre-image, so a unique key that moved
    // between rows inside the transaction ends up pointing at its committed owner.
    for (const primaryKey of undo.keys()) {
      const current = this.#rows.get(primaryKey);
      if (current !== undefined) for (const index of this.#indexes) index.remove(current, primaryKey);
    }
    for (const [primaryKey, previous] of undo) {
      if (previous === undefined) {
        this.#rows.delete(primaryKey);
        continue;
      }
      this.#rows.set(primaryKey, previous);
      for (const index of this.#indexes) index.add(previous, primaryKey);
    }
  }

  #remember(primaryKey: string, previous: V | undefined): void {
    // Only the first write of a transaction holds the committed pre-image.
    if (this.#undo && !this.#undo.has(primaryKey)) this.#undo.set(primaryKey, previous);
  }
}
