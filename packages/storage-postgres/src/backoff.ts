/**
 * The pause before a transaction runs again after a serialization failure or deadlock: "full
 * jitter" exponential backoff, so transactions that collided spread out instead of colliding
 * again in step.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Default of `maxTransactionAttempts`: the first run and up to 14 more. */
export const DEFAULT_TRANSACTION_ATTEMPTS = 15;

const BASE_MS = 2;
const CAP_MS = 200;

/** Waits a random time up to 2 ms, 4 ms, 8 ms, ... (at most 200 ms) after failed attempt `attempt`. */
export function backoff(attempt: number): Promise<void> {
  return sleep(backoffDelay(attempt));
}

/** A random pause in milliseconds up to 2, 4, 8, ... and at most `capMs`, after failed attempt `attempt`. */
export function backoffDelay(attempt: number, capMs = CAP_MS): number {
  return Math.random() * Math.min(capMs, BASE_MS * 2 ** Math.max(0, attempt - 1));
}

/** `value` when it is a whole number of attempts from 1 on; otherwise a RangeError. */
export function checkAttempts(value: number | undefined): number {
  const attempts = value ?? DEFAULT_TRANSACTION_ATTEMPTS;
  if (!Number.isSafeInteger(attempts) || attempts < 1) {
    throw new RangeError(`maxTransactionAttempts must be a positive integer, got ${attempts}`);
  }
  return attempts;
}
