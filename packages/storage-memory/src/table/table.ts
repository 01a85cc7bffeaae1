/**
 * An in-memory table: rows by primary key, secondary indexes kept in step with every write,
 * and an undo log of the rows the running transaction changed.
 *
 * Stored rows are never mutated, only replaced, so the undo log can keep the very objects it
 * saw as pre-images. Those pre-images also make up the committed state, which lets readers
 * outside the transaction skip its uncommitted writes without taking the lock.
 * @module
 */
import type { AgeIndex } from './age-index.js';
import type { GroupIndex, UniqueIndex } from './hash-indexes.js';
import type { OrderedIndex } from './ordered-index.js';

type Index<V> = UniqueIndex<V> | GroupIndex<V> | OrderedIndex<V> | AgeIndex<V>;

/** A group of an {@link OrderedIndex}, as one view of the table sees it. */
export interface OrderedRows<V> {
  readonly size: number;
  /** The row at `position` in reading order. */
  at(position: number): V | undefined;
  /** Rows `offset` to `offset + limit` in reading order. */
  page(offset: number, limit: number): V[];
  /** Every row, in reading order (for scans: a plain array loops faster than an iterator). */
  all(): V[];
}

/** Read access to one state of a table: the live rows, or the last committed ones. */
export interface TableView<V> {
  get(primaryKey: string): V | undefined;
  find(index: UniqueIndex<V>, key: string): V | undefined;
  group(index: GroupIndex<V>, key: string): V[];
  ordered(index: OrderedIndex<V>, key: string): OrderedRows<V>;
}

export interface TableOptions<V> {
  /**
   * Called once with each row that left the table for good: replaced or deleted outside a
   * transaction, replaced or deleted by a transaction that committed (the pre-image), written by
   * a transaction and then replaced, deleted or rolled back. Nothing in the table refers to it
   * afterwards, so resources it holds can be reused.
   */
  release?: (row: V) => void;
}

export class Table<V> {
  readonly #rows = new Map<string, V>();
  readonly #indexes: readonly Index<V>[];
  readonly #release: ((row: V) => void) | undefined;
  /** Whether a transaction is running. */
  #active = false;
  /**
   * Pre-image of every row the running transaction wrote (`undefined`: it did not exist);
   * created on the first write, so a transaction that leaves the table alone costs nothing here.
   */
  #undo: Map<string, V | undefined> | null = null;

  /** Rows as they are now, including the running transaction's writes. */
  readonly live: TableView<V>;
  /** Rows as last committed; what readers outside the running transaction see. */
  readonly committed: TableView<V>;

  constructor(
    readonly primaryKeyOf: (row: V) => string,
    indexes: readonly Index<V>[] = [],
    options: TableOptions<V> = {},
  ) {
    this.#indexes = indexes;
    this.#release = options.release;
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
      ordered: (index, key) => this.#liveOrdered(index, key),
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
      ordered: (index, key) => this.#committedOrdered(index, key),
    };
  }

  /** Inserts or replaces the row under its primary key. The table keeps `row`: pass a private copy. */
  put(row: V): void {
    const primaryKey = this.primaryKeyOf(row);
    const previous = this.#rows.get(primaryKey);
    this.#remember(primaryKey, previous);
    this.#rows.set(primaryKey, row);
    if (previous === undefined) for (const index of this.#indexes) index.add(row, primaryKey);
    else for (const index of this.#indexes) index.move(previous, row, primaryKey);
    if (previous !== undefined && previous !== row) this.#replaced(primaryKey, previous);
  }

  /** True when a row was deleted. */
  delete(primaryKey: string): boolean {
    const previous = this.#rows.get(primaryKey);
    if (previous === undefined) return false;
    this.#remember(primaryKey, previous);
    for (const index of this.#indexes) index.remove(previous, primaryKey);
    this.#rows.delete(primaryKey);
    this.#replaced(primaryKey, previous);
    return true;
  }

  begin(): void {
    this.#active = true;
    this.#undo = null;
  }

  commit(): void {
    const undo = this.#undo;
    this.#active = false;
    this.#undo = null;
    const release = this.#release;
    if (!undo || !release) return;
    // Pre-images the transaction replaced or deleted are gone now.
    for (const [primaryKey, previous] of undo) if (previous !== undefined && this.#rows.get(primaryKey) !== previous) release(previous);
  }

  rollback(): void {
    const undo = this.#undo;
    this.#active = false;
    this.#undo = null;
    if (!undo) return;
    const release = this.#release;
    if (release) {
      // The transaction's own rows are dropped.
      for (const [primaryKey, previous] of undo) {
        const current = this.#rows.get(primaryKey);
        if (current !== undefined && current !== previous) release(current);
      }
    }
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

  /**
   * `previous` left the live rows: released at once, unless it is the running transaction's
   * pre-image, which a rollback puts back (a commit releases it).
   */
  #replaced(primaryKey: string, previous: V): void {
    const release = this.#release;
    if (!release) return;
    if (!this.#active || this.#undo?.get(primaryKey) !== previous) release(previous);
  }

  #remember(primaryKey: string, previous: V | undefined): void {
    if (!this.#active) return;
    let undo = this.#undo;
    if (!undo) {
      undo = new Map();
      this.#undo = undo;
    }
    // Only the first write of a transaction holds the committed pre-image.
    if (!undo.has(primaryKey)) undo.set(primaryKey, previous);
  }

  #liveOrdered(index: OrderedIndex<V>, key: string): OrderedRows<V> {
    const rows = this.#rows;
    const group = index.snapshot(key);
    const rowAt = (position: number): V | undefined => {
      const primaryKey = group.primaryKeyAt(position);
      return primaryKey === undefined ? undefined : rows.get(primaryKey);
    };
    return {
      size: group.size,
      at: rowAt,
      page(offset, limit) {
        const page: V[] = [];
        const end = Math.min(offset + limit, group.size);
        for (let position = Math.max(offset, 0); position < end; position += 1) {
          const row = rowAt(position);
          if (row !== undefined) page.push(row);
        }
        return page;
      },
      all() {
        return this.page(0, group.size);
      },
    };
  }

  /**
   * The committed side of a group: the live group without the rows the transaction wrote, merged
   * with the pre-images that belong to the group. Costs O(undo log) when the transaction did not
   * touch the group, else O(rows read) plus a sort of the few pre-images.
   */
  #committedOrdered(index: OrderedIndex<V>, key: string): OrderedRows<V> {
    const undo = this.#undo;
    const live = this.#liveOrdered(index, key);
    if (!undo) return live;
    let hidden = 0;
    const restored: [string, V][] = [];
    for (const [primaryKey, previous] of undo) {
      const current = this.#rows.get(primaryKey);
      if (current !== undefined && index.keyOf(current) === key) hidden += 1;
      if (previous !== undefined && index.keyOf(previous) === key) restored.push([primaryKey, previous]);
    }
    if (hidden === 0 && restored.length === 0) return live;
    restored.sort(([aKey, a], [bKey, b]) => index.compare(a, aKey, b, bKey));
    const primaryKeyOf = this.primaryKeyOf;
    function* merged(): Generator<V> {
      let next = 0;
      for (let position = 0; position < live.size; position += 1) {
        const row = live.at(position);
        if (row === undefined) continue;
        const primaryKey = primaryKeyOf(row);
        if (undo?.has(primaryKey)) continue;
        // Pre-images that come before this row in reading order go first.
        while (next < restored.length) {
          const [restoredKey, restoredRow] = restored[next] as [string, V];
          if (index.compare(restoredRow, restoredKey, row, primaryKey) >= 0) break;
          yield restoredRow;
          next += 1;
        }
        yield row;
      }
      for (; next < restored.length; next += 1) yield (restored[next] as [string, V])[1];
    }
    return {
      size: live.size - hidden + restored.length,
      at(position) {
        return position < 0 ? undefined : this.page(position, 1)[0];
      },
      page(offset, limit) {
        const page: V[] = [];
        if (limit <= 0) return page;
        let position = 0;
        for (const row of merged()) {
          if (position >= offset) {
            page.push(row);
            if (page.length >= limit) break;
          }
          position += 1;
        }
        return page;
      },
      all: () => [...merged()],
    };
  }
}
