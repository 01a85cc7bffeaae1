/**
 * A {@link ChangeFeed} within one process: every subscriber of the feed gets every change, on a
 * later microtask. Storage that lives in one process (memory) uses it as its whole feed; networked
 * storage may use it to deliver what its listener receives.
 * @module
 */
import type { ChangeFeed, ChangeListener, StorageChange } from '../ports/change-feed.js';

export interface LocalChangeFeed extends ChangeFeed {
  /** Delivers a change (a `reset` included) to every subscriber, asynchronously. */
  emit(change: StorageChange): void;
  /** How many subscriptions are open. */
  readonly size: number;
}

export function createLocalChangeFeed(): LocalChangeFeed {
  const listeners = new Set<{ listener: ChangeListener }>();
  const emit = (change: StorageChange): void => {
    if (listeners.size === 0) return;
    const targets = [...listeners];
    queueMicrotask(() => {
      for (const target of targets) {
        // Unsubscribed since: a change must not reach a listener after it stopped listening.
        if (!listeners.has(target)) continue;
        try {
          target.listener(change);
        } catch {
          // One listener's failure is its own; the others still hear of the change.
        }
      }
    });
  };
  return {
    emit,
    get size() {
      return listeners.size;
    },
    async publish(change) {
      emit(change);
    },
    async subscribe(listener) {
      const entry = { listener };
      listeners.add(entry);
      return async () => {
        listeners.delete(entry);
      };
    },
  };
}
