/**
 * An index of a whole table by age, for evicting its oldest rows.
 * @module
 */
import { instantOf } from './ordered-index.js';

/** One row's place: ordered by `at`, then `primaryKey`; `dead` marks a row removed from the middle. */
interface Slot {
  readonly at: number;
  readonly primaryKey: string;
  dead: boolean;
}

function compareSlots(a: Slot, b: Slot): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  if (a.primaryKey !== b.primaryKey) return a.primaryKey < b.primaryKey ? -1 : 1;
  return 0;
}

/** Swept slots (dropped before the head, or marked dead) tolerated before the array is rebuilt. */
const MIN_SWEEP = 64;

/**
 * Every row of a table, oldest first (lowest instant, then lowest primary key, in code-unit
 * order), answering only how many there are and which is the oldest.
 *
 * An {@link OrderedIndex} group keeps its rows in one array with positional reads, so removing a
 * row from its middle is a `splice`, O(rows): 5 µs at 10,000 rows, 0.6 ms at a million. Here a
 * row removed from the middle (a delivery evicted by its org's own bound) is only marked dead,
 * and the marks are swept out once they and the dropped head make up half the array. So adding
 * in time order, removing the oldest and removing from the middle all cost O(1) amortised, plus
 * the binary search that finds a removed row (and a `splice` for a row older than the newest,
 * which rows that arrive in time order, as deliveries do, never need).
 */
export class AgeIndex<V> {
  /** Ascending; before `#head`, dropped slots. Invariant: the head and the last slot are live. */
  #slots: (Slot | undefined)[] = [];
  #head = 0;
  /** Dead slots at or after `#head`. */
  #dead = 0;
  #size = 0;

  constructor(private readonly timeOf: (row: V) => string) {}

  /** How many rows the index holds. */
  get size(): number {
    return this.#size;
  }

  /** The primary key of the oldest row. */
  oldest(): string | undefined {
    return this.#size === 0 ? undefined : this.#slots[this.#head]?.primaryKey;
  }

  add(row: V, primaryKey: string): void {
    const slot: Slot = { at: instantOf(this.timeOf(row)), primaryKey, dead: false };
    const slots = this.#slots;
    const last = slots[slots.length - 1];
    this.#size += 1;
    if (last === undefined || compareSlots(last, slot) < 0) {
      slots.push(slot);
      return;
    }
    const position = this.#lowerBound(slot);
    const found = slots[position];
    if (found !== undefined && compareSlots(found, slot) === 0) {
      // The row's own dead slot (it was removed, and is back: a rollback, or an id inserted again).
      found.dead = false;
      this.#dead -= 1;
    } else if (position === this.#head && this.#head > 0) {
      this.#head -= 1;
      slots[this.#head] = slot;
    } else {
      slots.splice(position, 0, slot);
    }
  }

  remove(row: V, primaryKey: string): void {
    const slots = this.#slots;
    // The oldest (evicted) row is found without parsing its instant: a primary key has one live slot.
    let position = this.#head;
    if (slots[position]?.primaryKey !== primaryKey) {
      const target: Slot = { at: instantOf(this.timeOf(row)), primaryKey, dead: false };
      position = this.#lowerBound(target);
      const found = slots[position];
      if (found === undefined || found.dead || compareSlots(found, target) !== 0) return;
    }
    this.#size -= 1;
    if (this.#size === 0) {
      this.#clear();
      return;
    }
    if (position === slots.length - 1) {
      slots.pop();
      this.#dropDeadTail();
    } else if (position === this.#head) {
      slots[position] = undefined;
      this.#head += 1;
      this.#dropDeadHead();
    } else {
      (slots[position] as Slot).dead = true;
      this.#dead += 1;
    }
    this.#sweep();
  }

  move(previous: V, row: V, primaryKey: string): void {
    if (this.timeOf(previous) === this.timeOf(row)) return;
    this.remove(previous, primaryKey);
    this.add(row, primaryKey);
  }

  #dropDeadHead(): void {
    const slots = this.#slots;
    for (let slot = slots[this.#head]; slot?.dead; slot = slots[this.#head]) {
      slots[this.#head] = undefined;
      this.#head += 1;
      this.#dead -= 1;
    }
  }

  #dropDeadTail(): void {
    const slots = this.#slots;
    while (slots[slots.length - 1]?.dead) {
      slots.pop();
      this.#dead -= 1;
    }
  }

  /** Rebuilds the array without dropped and dead slots once they are half of it: O(1) amortised. */
  #sweep(): void {
    const swept = this.#head + this.#dead;
    if (swept < MIN_SWEEP || swept * 2 < this.#slots.length) return;
    const live: Slot[] = [];
    for (let position = this.#head; position < this.#slots.length; position += 1) {
      const slot = this.#slots[position];
      if (slot !== undefined && !slot.dead) live.push(slot);
    }
    this.#slots = live;
    this.#head = 0;
    this.#dead = 0;
  }

  #clear(): void {
    this.#slots = [];
    this.#head = 0;
    this.#dead = 0;
  }

  /** The first position whose slot (dead or live) is not below `slot`. */
  #lowerBound(slot: Slot): number {
    let low = this.#head;
    let high = this.#slots.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const probe = this.#slots[middle];
      if (probe !== undefined && compareSlots(probe, slot) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
