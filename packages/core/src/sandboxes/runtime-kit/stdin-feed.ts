/**
 * Feeding `ExecInput.stdin` to a command: a string or bytes written whole, an async iterable
 * streamed chunk by chunk with backpressure, and the input closed (end of file) after.
 * @module
 */
import type { Writable } from 'node:stream';
import { validationError } from '../../kernel/errors.js';
import type { ExecInput } from '../../ports/sandbox-runtime.js';

export type StdinInput = NonNullable<ExecInput['stdin']>;

/** Throws `PlatformError` VALIDATION_FAILED unless `stdin` is absent, a string, bytes or an async iterable. */
export function checkStdin(stdin: unknown): void {
  if (stdin === undefined || typeof stdin === 'string' || stdin instanceof Uint8Array) return;
  const iterate = (stdin as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator];
  if (typeof iterate !== 'function') {
    throw validationError(['stdin'], 'Stdin must be a string, a Uint8Array or an async iterable of them');
  }
}

/**
 * Writes a command's standard input to `sink` (the write side of its stdin), then ends it so the
 * command sees end of file. An async iterable is read one chunk at a time, each written as it
 * comes; when `sink` is full the next chunk waits for `drain`. The input also ends (as if the
 * iterable had) when the iterable throws or yields something that is neither a string nor bytes.
 *
 * {@link stop} — to be called when the command has exited or is killed — stops writing and calls
 * the iterator's `return()` (at once, even while a `next()` is pending, so an iterable waiting for
 * data can end). A write error of `sink` (EPIPE: the command closed its input or exited) stops it
 * too; it is swallowed, never thrown. The owner of `sink` closes or destroys it.
 */
export class StdinFeed {
  private stopped = false;
  private iterator: AsyncIterator<string | Uint8Array> | undefined;
  /** The iterator was obtained and has not ended, thrown or been returned. */
  private live = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly sink: Writable,
    input: StdinInput,
  ) {
    sink.on('error', () => this.stop());
    sink.on('close', () => this.stop());
    if (typeof input === 'string' || input instanceof Uint8Array) {
      sink.end(input);
      return;
    }
    void this.pump(input);
  }

  /** Stops writing and closes the iterable (idempotent). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.wake?.();
    this.close();
  }

  private async pump(input: AsyncIterable<string | Uint8Array>): Promise<void> {
    try {
      this.iterator = input[Symbol.asyncIterator]();
    } catch {
      this.endSink();
      return;
    }
    this.live = true;
    while (!this.stopped) {
      let step: IteratorResult<string | Uint8Array>;
      try {
        step = await this.iterator.next();
      } catch {
        // The iterable failed: it is done; the command gets end of file.
        this.live = false;
        break;
      }
      if (step.done === true) {
        this.live = false;
        break;
      }
      if (this.stopped) return;
      const chunk: unknown = step.value;
      if (typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) {
        this.close();
        break;
      }
      if (chunk.length > 0 && !this.sink.write(chunk)) await this.drained();
    }
    this.endSink();
  }

  private endSink(): void {
    if (!this.stopped && !this.sink.destroyed && !this.sink.writableEnded) this.sink.end();
  }

  /** Calls the iterator's `return()` once, if it is still live; its outcome is ignored. */
  private close(): void {
    const iterator = this.iterator;
    if (!this.live || iterator === undefined) return;
    this.live = false;
    const finish = iterator.return;
    if (typeof finish !== 'function') return;
    void (async () => finish.call(iterator))().catch(() => undefined);
  }

  /** Resolves when `sink` can take more, is closed or failed, or the feed stops. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.sink.off('drain', done);
        this.sink.off('close', done);
        this.sink.off('error', done);
        this.wake = undefined;
        resolve();
      };
      this.sink.on('drain', done);
      this.sink.on('close', done);
      this.sink.on('error', done);
      this.wake = done;
    });
  }
}
