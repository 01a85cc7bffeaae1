/**
 * Polling until something reaches a final state, for `waitForRun` and `waitUntilReady`: the
 * interval grows from 100 ms to `intervalMs`, so short work is seen finished quickly and long work
 * costs few requests.
 * @module
 */

export interface WaitOptions {
  /** Give up after this many ms (default 300,000: five minutes). */
  timeoutMs?: number;
  /** The longest pause between two polls, in ms (default 1,000). */
  intervalMs?: number;
  /** Stops waiting; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

const FIRST_INTERVAL_MS = 100;

/**
 * Reads until `done(value)` holds and returns that value; when `timeoutMs` passes first, throws
 * `onTimeout(last value read)`. Errors from `read` (a 404, a lost connection) end the wait as they are.
 */
export async function pollUntil<T>(
  read: (signal: AbortSignal | undefined) => Promise<T>,
  done: (value: T) => boolean,
  options: WaitOptions,
  onTimeout: (last: T | null) => Error,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const maxInterval = options.intervalMs ?? 1_000;
  if (!(timeoutMs >= 0)) throw new RangeError('timeoutMs must be a number of milliseconds, 0 or more');
  if (!(maxInterval > 0)) throw new RangeError('intervalMs must be a positive number of milliseconds');
  const deadline = Date.now() + timeoutMs;
  let interval = Math.min(FIRST_INTERVAL_MS, maxInterval);
  let last: T | null = null;
  for (;;) {
    options.signal?.throwIfAborted();
    last = await read(options.signal);
    if (done(last)) return last;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw onTimeout(last);
    await sleep(Math.min(interval, remaining), options.signal);
    interval = Math.min(interval * 2, maxInterval);
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts (at once if it already has). */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
