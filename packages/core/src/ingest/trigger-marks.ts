/**
 * `last_triggered_at` of automations, written after the answer and coalesced: a busy automation
 * matched by hundreds of deliveries a second gets one write per flush, not one per delivery,
 * and no delivery waits for it. The timestamp is informational (the delivery and its runs are
 * the record); reads in this process flush first, so they see their own deliveries' marks.
 * @module
 */
import type { StorageAdapter } from '../ports/storage.js';

/** How long marks gather before they are written, in ms. */
const FLUSH_DELAY_MS = 20;

export class TriggerMarks {
  /** org → automation → latest trigger time (ISO, so the string order is the time order). */
  private pending = new Map<string, Map<string, string>>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly storage: StorageAdapter) {}

  /** Notes that `automationIds` of `orgId` fired at `at`; written soon, in the background. */
  note(orgId: string, automationIds: readonly string[], at: string): void {
    let byAutomation = this.pending.get(orgId);
    if (!byAutomation) {
      byAutomation = new Map();
      this.pending.set(orgId, byAutomation);
    }
    for (const id of automationIds) {
      const known = byAutomation.get(id);
      if (known === undefined || known < at) byAutomation.set(id, at);
    }
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
      this.timer.unref?.();
    }
  }

  /** Writes every mark noted so far (and waits for writes already under way). Never throws. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  private async write(batch: Map<string, Map<string, string>>): Promise<void> {
    for (const [orgId, byAutomation] of batch) {
      // One statement per distinct time: under load most marks of a batch share the latest.
      const byTime = new Map<string, string[]>();
      for (const [id, at] of byAutomation) byTime.set(at, [...(byTime.get(at) ?? []), id]);
      for (const [at, ids] of byTime) {
        await this.storage.automations.markTriggered(orgId, ids, at).catch(() => {
          // Best effort: the delivery and its runs are stored; a missed timestamp is not worth more.
        });
      }
    }
  }
}
