/**
 * When a failed outbound message is tried again: exponential-ish steps from seconds to hours,
 * about a day in all, each stretched or shrunk at random by up to a fifth (jitter),
 * so that messages that failed together — a subscriber's outage — do not all come back at once.
 * @module
 */

/** The waits after the 1st, 2nd, ... failed attempt; after the last, the message fails for good. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 8 * 3_600_000, 10 * 3_600_000];

const JITTER = 0.2;

/**
 * When attempt `failed` + 1 is due after attempt `failed` failed at `now`, or `null` when
 * `failed` was the last. `random` is in [0, 1).
 */
export function nextAttemptAt(failed: number, now: Date, delays: readonly number[], random: () => number = Math.random): Date | null {
  const base = delays[failed - 1];
  if (base === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return new Date(now.getTime() + Math.round(base * factor));
}
