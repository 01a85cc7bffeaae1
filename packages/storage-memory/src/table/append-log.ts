/**
 * An append-only log of lists by key, rolled back with the tables of the same transaction.
 * @module
 */

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
      this.#undo ??= new Map();
      if (!this.#undo.has(key)) this.#undo.set(key, list.length);
      this.#removed ??= new Map();
      if (!this.#removed.has(key)) this.#removed.set(key, list);
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
      this.#undo ??= new Map();
      if (!this.#undo.has(key)) this.#undo.set(key, list.length);
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
