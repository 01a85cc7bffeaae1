/**
 * An in-memory table: rows by primary key, secondary indexes kept in step with every write,
 * and an undo log of the rows the running transaction changed.
 *
 * Stored rows are never mutated, only replaced, so the undo log can keep the very objects it
 * saw as pre-images. Those pre-images also make up the committed state, which lets readers
 * outside the transaction skip its uncommitted writes without taking the lock.
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

/** One position in an {@link OrderedIndex} group: ordered by `at`, then `tie`, then `primaryKey`. */
interface Entry {
  readonly at: number;
  readonly tie: string;
  readonly primaryKey: string;
}

/** Instants as numbers; code-unit order for strings, like a `COLLATE "C"` database column. */
function compareEntries(a: Entry, b: Entry): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  if (a.tie !== b.tie) return a.tie < b.tie ? -1 : 1;
  if (a.primaryKey !== b.primaryKey) return a.primaryKey < b.primaryKey ? -1 : 1;
  return 0;
}

/** Milliseconds since the epoch; an unparsable timestamp sorts first rather than breaking the order. */
export function instantOf(timestamp: string): number {
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
}

/**
 * A group's entries in ascending order. Appending past the end and dropping the first entry are
 * O(1) (the common cases: records arrive in time order, eviction and expiry drop the oldest);
 * anything else is a binary search plus one `splice`.
 */
class SortedEntries {
  /** Slots before `#head` are dropped entries, compacted away once they are half the array. */
  #entries: (Entry | undefined)[] = [];
  #head = 0;

  get size(): number {
    return this.#entries.length - this.#head;
  }

  /** The entry at `position` in ascending order (0: the first). */
  at(position: number): Entry | undefined {
    return position < 0 ? undefined : this.#entries[this.#head + position];
  }

  insert(entry: Entry): void {
    const entries = this.#entries;
    const last = entries[entries.length - 1];
    if (this.size === 0 || (last !== undefined && compareEntries(last, entry) < 0)) {
      entries.push(entry);
      return;
    }
    const position = this.#lowerBound(entry);
    if (position === this.#head && this.#head > 0) {
      this.#head -= 1;
      entries[this.#head] = entry;
    } else {
      entries.splice(position, 0, entry);
    }
  }

  /** True when the entry was there. */
  remove(entry: Entry): boolean {
    const entries = this.#entries;
    const position = this.#lowerBound(entry);
    const found = entries[position];
    if (found === undefined || compareEntries(found, entry) !== 0) return false;
    if (position === entries.length - 1) {
      entries.pop();
      if (entries.length === this.#head) this.#clear();
    } else if (position === this.#head) {
      entries[position] = undefined;
      this.#head += 1;
      if (this.#head >= 64 && this.#head * 2 >= entries.length) {
        this.#entries = entries.slice(this.#head);
        this.#head = 0;
      }
    } else {
      entries.splice(position, 1);
    }
    return true;
  }

  #clear(): void {
    this.#entries = [];
    this.#head = 0;
  }

  /** The first position whose entry is not below `entry`. */
  #lowerBound(entry: Entry): number {
    let low = this.#head;
    let high = this.#entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const probe = this.#entries[middle];
      if (probe !== undefined && compareEntries(probe, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

export interface OrderedIndexOptions<V> {
  /** The group a row belongs to; `undefined` leaves the row out. */
  keyOf: (row: V) => string | undefined;
  /** The timestamp the group is ordered by. */
  timeOf: (row: V) => string;
  /** Breaks ties between equal instants, in code-unit order; the primary key when omitted. */
  tieOf?: (row: V) => string;
  /** Reading order: `newest-first` reads in descending order, `oldest-first` ascending. */
  order: 'newest-first' | 'oldest-first';
}

/**
 * Many rows per key, kept sorted by an instant then a tie-breaker, so a page of a group costs
 * O(page) rather than a sort of the group, and its oldest row is found in O(1).
 */
export class OrderedIndex<V> {
  readonly #groups = new Map<string, SortedEntries>();
  readonly keyOf: (row: V) => string | undefined;
  readonly #timeOf: (row: V) => string;
  readonly #tieOf: ((row: V) => string) | undefined;
  readonly descending: boolean;

  constructor(options: OrderedIndexOptions<V>) {
    this.keyOf = options.keyOf;
    this.#timeOf = options.timeOf;
    this.#tieOf = options.tieOf;
    this.descending = options.order === 'newest-first';
  }

  /** How many rows the group holds. */
  size(key: string): number {
    return this.#groups.get(key)?.size ?? 0;
  }

  /**
   * The group's primary keys in reading order, as a size and a positional lookup. Valid until
   * the next write: callers read it synchronously.
   */
  snapshot(key: string): { readonly size: number; primaryKeyAt(position: number): string | undefined } {
    const group = this.#groups.get(key);
    if (!group) return EMPTY_SNAPSHOT;
    const size = group.size;
    const last = size - 1;
    return this.descending
      ? { size, primaryKeyAt: (position) => group.at(last - position)?.primaryKey }
      : { size, primaryKeyAt: (position) => group.at(position)?.primaryKey };
  }

  /** The primary key of the group's oldest row (lowest instant), whatever the reading order. */
  oldest(key: string): string | undefined {
    return this.#groups.get(key)?.at(0)?.primaryKey;
  }

  /** Compares two rows in reading order. */
  compare(a: V, aKey: string, b: V, bKey: string): number {
    const order = compareEntries(this.#entry(a, aKey), this.#entry(b, bKey));
    return this.descending ? -order : order;
  }

  add(row: V, primaryKey: string): void {
    const key = this.keyOf(row);
    if (key === undefined) return;
    let group = this.#groups.get(key);
    if (!group) {
      group = new SortedEntries();
      this.#groups.set(key, group);
    }
    group.insert(this.#entry(row, primaryKey));
  }

  remove(row: V, primaryKey: string): void {
    const key = this.keyOf(row);
    if (key === undefined) return;
    const group = this.#groups.get(key);
    if (!group) return;
    group.remove(this.#entry(row, primaryKey));
    if (group.size === 0) this.#groups.delete(key);
  }

  move(previous: V, row: V, primaryKey: string): void {
    // Most updates (a run's status, an automation's last trigger) keep the row where it is.
    if (
      this.keyOf(previous) === this.keyOf(row) &&
      this.#timeOf(previous) === this.#timeOf(row) &&
      this.#tieOf?.(previous) === this.#tieOf?.(row)
    ) {
      return;
    }
    this.remove(previous, primaryKey);
    this.add(row, primaryKey);
  }

  #entry(row: V, primaryKey: string): Entry {
    return { at: instantOf(this.#timeOf(row)), tie: this.#tieOf ? this.#tieOf(row) : primaryKey, primaryKey };
  }
}

const EMPTY_SNAPSHOT = { size: 0, primaryKeyAt: (): undefined => undefined };

type Index<V> = UniqueIndex<V> | GroupIndex<V> | OrderedIndex<V>;

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

export class Table<V> {
  readonly #rows = new Map<string, V>();
  readonly #indexes: readonly Index<V>[];
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
    this.#active = true;
    this.#undo = null;
  }

  commit(): void {
    this.#active = false;
    this.#undo = null;
  }

  rollback(): void {
    const undo = this.#undo;
    this.#active = false;
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

/** Read access to one state of an {@link AppendLog}: the live lists, or the last committed ones. */
export interface AppendLogView<V> {
  /** How many entries the list holds. */
  size(key: string): number;
  /** Entries `start` to `end` (exclusive) of the list. */
  slice(key: string, start: number, end: number): V[];
}

/**
 * Append-only lists by key (a conversation's events), with the transaction rules of a
 * {@link Table}: a running transaction's appends and removals are visible through `live` only,
 * and rollback truncates each list it grew back to its committed length and puts back each list
 * it removed. Appends are O(1) amortized; entries are never replaced, and a list is only removed
 * whole, so the log needs no pre-images beyond lengths and removed lists.
 */
export class AppendLog<V> {
  readonly #lists = new Map<string, V[]>();
  #active = false;
  /** Committed length of every list the running transaction appended to or removed. */
  #undo: Map<string, number> | null = null;
  /** The lists the running transaction removed, as they were (its appends before the removal included). */
  #removed: Map<string, V[]> | null = null;

  readonly live: AppendLogView<V>;
  readonly committed: AppendLogView<V>;

  constructor() {
    this.live = {
      size: (key) => this.#lists.get(key)?.length ?? 0,
      slice: (key, start, end) => this.#lists.get(key)?.slice(start, end) ?? [],
    };
    this.committed = {
      size: (key) => this.#committedSize(key),
      slice: (key, start, end) => this.#committedList(key)?.slice(start, Math.min(end, this.#committedSize(key))) ?? [],
    };
  }

  /** Removes the list of `key` whole (a conversation deleted); no-op for an unknown key. */
  remove(key: string): void {
    const list = this.#lists.get(key);
    if (!list) return;
    if (this.#active) {
      const undo = (this.#undo ??= new Map());
      if (!undo.has(key)) undo.set(key, list.length);
      const removed = (this.#removed ??= new Map());
      if (!removed.has(key)) removed.set(key, list);
    }
    this.#lists.delete(key);
  }

  /** Appends to the list of `key`. The log keeps the rows: pass private copies. */
  append(key: string, rows: readonly V[]): void {
    if (rows.length === 0) return;
    let list = this.#lists.get(key);
    if (!list) {
      list = [];
      this.#lists.set(key, list);
    }
    if (this.#active) {
      const undo = (this.#undo ??= new Map());
      if (!undo.has(key)) undo.set(key, list.length);
    }
    for (const row of rows) list.push(row);
  }

  begin(): void {
    this.#active = true;
    this.#undo = null;
    this.#removed = null;
  }

  commit(): void {
    this.#active = false;
    this.#undo = null;
    this.#removed = null;
  }

  rollback(): void {
    const undo = this.#undo;
    const removed = this.#removed;
    this.#active = false;
    this.#undo = null;
    this.#removed = null;
    // A removed list comes back as it was (then is cut back to its committed length below); a
    // list begun after the removal is dropped with it.
    for (const [key, list] of removed ?? []) this.#lists.set(key, list);
    if (!undo) return;
    for (const [key, length] of undo) {
      const list = this.#lists.get(key);
      if (!list) continue;
      if (length === 0) this.#lists.delete(key);
      else list.length = length;
    }
  }

  #committedSize(key: string): number {
    const committed = this.#undo?.get(key);
    return committed ?? this.#lists.get(key)?.length ?? 0;
  }

  /** The list holding the committed entries of `key`: the removed one while the transaction runs. */
  #committedList(key: string): V[] | undefined {
    return this.#removed?.get(key) ?? this.#lists.get(key);
  }
}
