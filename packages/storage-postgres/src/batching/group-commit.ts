/**
 * Group commit: writes that arrive while a batch is being committed wait, and go together in the
 * next one. Under load each commit — one round trip and one WAL flush — carries every write that
 * queued behind the one before it, so the cost of a commit is shared instead of paid once per write.
 *
 * A batch starts on the event loop's next turn (`setImmediate`), never on a timer: at low load a
 * write waits a few microseconds, alone. That turn is what lets the requests already received
 * join: with embedded PGlite a statement runs synchronously on this thread, so requests pile up
 * unread in their sockets while a batch runs, and a batch started as soon as the first of them
 * was read would hold that one alone.
 *
 * - At most `maxInFlight` batches are being written at a time, each of at most `maxBatch` writes.
 * - Writes that must not share a batch (two claims of one dedup key: the second must see the first
 *   committed) carry the same `key`; a batch takes the first and leaves the others queued, in
 *   order, for a later batch.
 * - `write` answers each write of its batch on its own, so one that fails fails alone.
 * @module
 */

/** The outcome of one write of a batch. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface GroupCommitOptions<W, R> {
  /** Writes a batch, answering each write of it in order (as many outcomes as writes). */
  write(batch: readonly W[]): Promise<Outcome<R>[]>;
  /** Writes with the same key never share a batch; `null` shares with anything. */
  key(write: W): string | null;
  maxBatch: number;
  maxInFlight: number;
}

interface Waiting<W, R> {
  write: W;
  resolve(value: R): void;
  reject(error: unknown): void;
}

export class GroupCommit<W, R> {
  private queue: Waiting<W, R>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly options: GroupCommitOptions<W, R>) {}

  /** Resolves once the batch holding `write` has committed (or rejects with its own failure). */
  submit(write: W): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.schedule();
    });
  }

  /** Starts what can be started on the next turn of the event loop, once what was read this turn has queued. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Starts batches while there is room and something queued. */
  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight += 1;
      void this.run(batch).finally(() => {
        this.inFlight -= 1;
        if (this.queue.length > 0) this.schedule();
      });
    }
  }

  /** The next batch: queued writes in order, skipping (and keeping) any whose key it holds already. */
  private take(): Waiting<W, R>[] {
    const batch: Waiting<W, R>[] = [];
    const left: Waiting<W, R>[] = [];
    const keys = new Set<string>();
    for (const waiting of this.queue) {
      if (batch.length >= this.options.maxBatch) {
        left.push(waiting);
        continue;
      }
      const key = this.options.key(waiting.write);
      if (key !== null && keys.has(key)) {
        left.push(waiting);
        continue;
      }
      if (key !== null) keys.add(key);
      batch.push(waiting);
    }
    this.queue = left;
    return batch;
  }

  private async run(batch: readonly Waiting<W, R>[]): Promise<void> {
    let outcomes: Outcome<R>[];
    try {
      outcomes = await this.options.write(batch.map((waiting) => waiting.write));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    for (const [index, waiting] of batch.entries()) {
      const outcome = outcomes[index];
      if (outcome === undefined) waiting.reject(new Error('group commit: the batch writer answered fewer writes than it was given'));
      else if (outcome.ok) waiting.resolve(outcome.value);
      else waiting.reject(outcome.error);
    }
  }
}
