/**
 * Holding a transaction open at a known point, so a conformance test can read and write from
 * outside while it runs, then let it roll back.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { StorageAdapter, StorageRepositories } from '@agent-platform/core';

/** Long enough for a read or write started elsewhere to reach the backend while a transaction is open. */
export const HOLD_MS = 30;

/** A promise plus its resolver, to let a test act at a known point inside a transaction. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Starts a transaction that runs `write`, lets the test act, then throws. Resolves once `write`
 * is done; the returned `settled` rejects with `error`. Racing against the transaction keeps a
 * broken `write` from hanging the test.
 */
export async function openFailingTransaction(
  adapter: StorageAdapter,
  write: (tx: StorageRepositories) => Promise<void>,
  error: Error,
): Promise<{ settled: Promise<unknown> }> {
  const written = signal();
  const settled = adapter.transaction(async (tx) => {
    await write(tx);
    written.resolve();
    await sleep(HOLD_MS);
    throw error;
  });
  await Promise.race([written.promise, settled]);
  return { settled };
}
