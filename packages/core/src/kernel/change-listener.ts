/**
 * Keeps this process subscribed to the storage's change feed. A subscription that cannot be made
 * (the database is down at start) is tried again every few seconds; once it is made after a
 * failure, the handler gets a `reset`, since changes may have been missed meanwhile.
 * @module
 */
import type { ChangeListener } from '../ports/change-feed.js';
import type { StorageAdapter } from '../ports/storage.js';

const RETRY_MS = 2_000;

export class ChangeListenerLoop {
  private unsubscribe: (() => Promise<void>) | null = null;
  private retry: NodeJS.Timeout | null = null;
  private active = false;

  constructor(
    private readonly storage: StorageAdapter,
    private readonly handler: ChangeListener,
  ) {}

  /** Subscribes (or schedules retries when the feed cannot be reached now); never throws. */
  async start(): Promise<void> {
    if (this.active) return;
    this.active = true;
    await this.subscribe(false);
  }

  async stop(): Promise<void> {
    this.active = false;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = null;
    await unsubscribe?.().catch(() => {});
  }

  private async subscribe(afterFailure: boolean): Promise<void> {
    try {
      const unsubscribe = await this.storage.changes.subscribe((change) => this.handler(change));
      if (!this.active) return await unsubscribe();
      this.unsubscribe = unsubscribe;
      if (afterFailure) this.handler({ type: 'reset' });
    } catch {
      if (!this.active) return;
      this.retry = setTimeout(() => {
        this.retry = null;
        void this.subscribe(true);
      }, RETRY_MS);
      this.retry.unref();
    }
  }
}
