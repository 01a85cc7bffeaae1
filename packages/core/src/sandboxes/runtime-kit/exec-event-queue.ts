/**
 * The queue between a running command and the consumer of its `exec` stream.
 * @module
 */
import type { ExecEvent } from '../../ports/sandbox-runtime.js';

/**
 * Events in arrival order, taken one at a time with {@link next}. Output the consumer has not
 * taken yet is merged per stream, so a slow consumer costs one string per stream rather than
 * one event per chunk. After {@link close}, `next` drains what is left, then answers undefined.
 */
export class ExecEventQueue {
  private readonly events: ExecEvent[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  push(event: ExecEvent): void {
    const last = this.events.at(-1);
    if (event.type !== 'exit' && last !== undefined && last.type !== 'exit' && last.type === event.type) {
      last.data += event.data;
      return;
    }
    this.events.push(event);
    this.signal();
  }

  /** No more events will come. */
  close(): void {
    this.closed = true;
    this.signal();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The next event; undefined once closed and drained. */
  async next(): Promise<ExecEvent | undefined> {
    while (this.events.length === 0 && !this.closed) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    return this.events.shift();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
