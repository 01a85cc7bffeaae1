/**
 * The one change dispatcher. A change committed in this process goes to this process's handlers
 * at once (a run it created starts without waiting for the feed, a live stream reads on) and onto
 * the storage's change feed for the other processes; a change heard on the feed goes to the same
 * handlers. Each part of the engine registers for what it acts on, once, where it is built.
 *
 * The feed also brings a process its own changes back; handlers act on a change twice at most,
 * and each is safe to repeat (a claim, a cache drop, a stream reading on).
 * @module
 */
import type { PublishedChange, StorageChange } from '../ports/change-feed.js';
import type { StorageAdapter } from '../ports/storage.js';
import { ChangeListenerLoop } from './change-listener.js';

export type ChangeHandler = (change: StorageChange) => void;

export class ChangeDispatcher {
  private readonly handlers: ChangeHandler[] = [];
  private readonly listener: ChangeListenerLoop;

  constructor(private readonly storage: StorageAdapter) {
    this.listener = new ChangeListenerLoop(storage, (change) => this.dispatch(change));
  }

  /** Calls `handler` for every change, made here or heard from the feed. */
  on(handler: ChangeHandler): void {
    this.handlers.push(handler);
  }

  /**
   * Tells every process sharing the storage (this one included, at once) about a committed
   * change. Best effort: never throws, since polls and time limits stand behind the feed.
   */
  async announce(change: PublishedChange): Promise<void> {
    this.dispatch(change);
    await this.storage.changes.publish(change).catch(() => {
      // Executors poll, and the matching index expires, behind the feed.
    });
  }

  /** Starts hearing the other processes' changes. */
  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  private dispatch(change: StorageChange): void {
    for (const handler of this.handlers) {
      try {
        handler(change);
      } catch {
        // One part failing to act on a change must not keep it from the others.
      }
    }
  }
}
