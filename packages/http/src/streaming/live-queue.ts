/**
 * A queue a producer pushes into and a stream reads as an async iterator. Unlike an async
 * generator, its `return()` settles at once even while a `next()` is waiting (the waiting
 * `next()` settles `done`), so a binding that sees its client go away stops the producer
 * straight away rather than after the next item.
 * @module
 */

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

export interface LiveQueueOptions {
  /** Called once, when the reader stops (`return()`) or the queue overflows: stop producing. */
  onClose?: () => void;
  /**
   * Most items held for a reader that falls behind. Past it the producer is stopped
   * (`onClose`) and the reader gets what is held, then the end: a stream that resumes from its
   * last item (SSE `Last-Event-ID`) loses nothing. Default: no limit.
   */
  maxItems?: number;
}

export class LiveQueue<T> implements AsyncIterableIterator<T> {
  private items: T[] = [];
  private waiting: { resolve(result: IteratorResult<T>): void; reject(error: unknown): void } | null = null;
  /** No more items will be pushed: the reader gets what is held, then the end (or `error`). */
  private ended = false;
  /** The reader stopped: nothing more is read. */
  private closed = false;
  private error: { reason: unknown } | null = null;
  private closeCalled = false;

  constructor(private readonly options: LiveQueueOptions = {}) {}

  /** Whether the reader stopped or the queue ended (pushes are dropped). */
  get done(): boolean {
    return this.ended || this.closed;
  }

  push(item: T): void {
    if (this.done) return;
    if (this.waiting) {
      const waiting = this.waiting;
      this.waiting = null;
      waiting.resolve({ done: false, value: item });
      return;
    }
    this.items.push(item);
    if (this.items.length >= (this.options.maxItems ?? Number.POSITIVE_INFINITY)) {
      this.stopProducer();
      this.end();
    }
  }

  /** No more items: the reader gets what is held, then the end. */
  end(): void {
    if (this.done) return;
    this.ended = true;
    this.settleWaiting();
  }

  /** The producer failed: the reader gets what is held, then `reason` is thrown. */
  fail(reason: unknown): void {
    if (this.done) return;
    this.error = { reason };
    this.ended = true;
    this.settleWaiting();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.closed) return Promise.resolve(DONE);
    if (this.items.length > 0) return Promise.resolve({ done: false, value: this.items.shift() as T });
    if (this.ended) {
      if (this.error) {
        const { reason } = this.error;
        this.error = null;
        return Promise.reject(reason);
      }
      return Promise.resolve(DONE);
    }
    if (this.waiting) return Promise.reject(new Error('LiveQueue: one next() at a time'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The reader stops: held items are dropped, a waiting `next()` settles `done`, the producer is stopped. */
  return(): Promise<IteratorResult<T>> {
    this.closed = true;
    this.items = [];
    this.error = null;
    this.settleWaiting();
    this.stopProducer();
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private settleWaiting(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = null;
    if (this.error && !this.closed) {
      const { reason } = this.error;
      this.error = null;
      waiting.reject(reason);
    } else {
      waiting.resolve(DONE);
    }
  }

  private stopProducer(): void {
    if (this.closeCalled) return;
    this.closeCalled = true;
    this.options.onClose?.();
  }
}
