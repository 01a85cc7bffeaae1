/**
 * An index that keeps each group of rows sorted by an instant, so pages and the oldest row are
 * read without sorting the group.
 * @module
 */

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

  /**
   * Drops the first entry if it is `primaryKey`'s: eviction and expiry drop the oldest, found so
   * without computing its entry. A primary key has one entry in a group at most.
   */
  removeFirstIf(primaryKey: string): boolean {
    const first = this.#entries[this.#head];
    if (first === undefined || first.primaryKey !== primaryKey) return false;
    if (this.size === 1) {
      this.#clear();
      return true;
    }
    this.#entries[this.#head] = undefined;
    this.#head += 1;
    this.#compact();
    return true;
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
      this.#compact();
    } else {
      entries.splice(position, 1);
    }
    return true;
  }

  #clear(): void {
    this.#entries = [];
    this.#head = 0;
  }

  /** Drops the slots before the head once they are half the array. */
  #compact(): void {
    if (this.#head >= 64 && this.#head * 2 >= this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
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
    if (!group.removeFirstIf(primaryKey)) group.remove(this.#entry(row, primaryKey));
    if (group.size === 0) this.#groups.delete(key);
  }

  move(previous: V, row: V, primaryKey: string): void {
    // Most updates (a run's status, an automation's last trigger) keep the row where it is.
    if (this.keyOf(previous) === this.keyOf(row) && this.#timeOf(previous) === this.#timeOf(row) && this.#tieOf?.(previous) === this.#tieOf?.(row)) {
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
