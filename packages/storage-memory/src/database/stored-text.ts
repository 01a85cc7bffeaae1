/**
 * Long texts kept as UTF-8 bytes outside the V8 heap, in blocks that are reused.
 *
 * A delivery's payload (`payload_json`, ~21 KB for a GitHub pull request event) is written once,
 * read rarely (a delivery's page, a replay, a run's start) and kept until evicted. As a string it
 * is copied by each of the two scavenges it survives before it reaches the old generation,
 * delivery after delivery. As bytes in a `Buffer` the heap holds only a small handle — but each
 * new `Buffer` is external memory, and V8 starts a full mark-compact every 64 MB of it. So the
 * blocks of evicted payloads are kept and written again: once the store is full, each insert
 * evicts one delivery and reuses its block, and no external memory is allocated at all.
 * @module
 */

/** A text as stored: the string itself, or its UTF-8 bytes (a view of a pooled block). */
export type StoredText = string | Buffer;

/**
 * Texts shorter than this stay strings: copying them costs a scavenge little, and a block would
 * cost more than the text.
 */
export const MIN_STORED_BYTES_LENGTH = 4096;

/** Free bytes kept for reuse; blocks released beyond it are left to the garbage collector. */
const MAX_FREE_BYTES = 16 * 1024 * 1024;

/**
 * The size of the block for `length` bytes: rounded up to an eighth of its power of two, so a
 * block wastes at most 12.5 % and a payload of about the same size reuses another's block.
 */
function blockSize(length: number): number {
  const step = 2 ** Math.floor(Math.log2(length)) / 8;
  return Math.ceil(length / step) * step;
}

/** `String.prototype.isWellFormed` (Node 20+), which the ES2023 lib does not declare. */
interface WellFormedCheck {
  isWellFormed(): boolean;
}

/** Where one store keeps its long texts, and the free blocks it reuses. */
export class TextStore {
  /** Free blocks by size. */
  readonly #free = new Map<number, ArrayBuffer[]>();
  #freeBytes = 0;

  /**
   * @param offHeap false: keep every text a string. For a store that never evicts: without
   *   blocks to reuse, each text would be new external memory (and a mark-compact every 64 MB of
   *   it), which costs more than the scavenges it saves (measured: 85 → 95 µs per delivery in
   *   process).
   */
  constructor(private readonly offHeap = true) {}

  /**
   * The text as it will be stored. A text with a lone surrogate (not well-formed UTF-16) stays a
   * string: UTF-8 has no encoding for it and would read it back as U+FFFD. Every other text,
   * U+0000 and a byte order mark included, reads back exactly.
   */
  store(text: string): StoredText {
    if (!this.offHeap || text.length < MIN_STORED_BYTES_LENGTH || !(text as string & WellFormedCheck).isWellFormed()) return text;
    const length = Buffer.byteLength(text, 'utf8');
    const size = blockSize(length);
    let block = this.#free.get(size)?.pop();
    if (block) this.#freeBytes -= size;
    else block = Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer;
    const bytes = Buffer.from(block, 0, length);
    bytes.write(text, 'utf8');
    return bytes;
  }

  /** The text `stored` was made from. */
  read(stored: StoredText): string {
    return typeof stored === 'string' ? stored : stored.toString('utf8');
  }

  /** Takes back the block of a text nothing reads any more (see `TableOptions.release`). */
  release(stored: StoredText): void {
    if (typeof stored === 'string') return;
    const block = stored.buffer as ArrayBuffer;
    const size = block.byteLength;
    if (this.#freeBytes + size > MAX_FREE_BYTES) return;
    const free = this.#free.get(size);
    if (free) free.push(block);
    else this.#free.set(size, [block]);
    this.#freeBytes += size;
  }
}
