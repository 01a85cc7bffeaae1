/**
 * The run events of this process, declared once: what became of a run, told by the one place
 * that changed its status (`runs/run-lifecycle.ts`) to whatever reacts to runs — the answer on
 * the run's thread, outbound events to subscribers, metrics. Those subscribe here; the executor
 * knows none of them. Other processes hear of a change through the storage's change feed, not
 * through this bus: each event is told once, in the process that made the change.
 * @module
 */
import type { PendingAction } from '../ports/agent-runner.js';
import type { Logger } from '../ports/logger.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { RunRecord, RunStatus } from '../schemas/run.js';

export type RunEvent =
  /** An attempt began: the run is RUNNING under an executor's lease (`automation`: `null` when it was deleted). */
  | { type: 'run.started'; run: RunRecord; automation: AutomationRecord | null }
  /** The run went back to PENDING: a retry after a backoff, its executor shut down, or its worker died. */
  | { type: 'run.released'; run: RunRecord; from: RunStatus }
  /** The run's agent holds an action for approval (its owner's confirmation mode): someone must `/approve` or `/reject` it. */
  | { type: 'run.held'; run: RunRecord; action: PendingAction }
  /** The run reached its final status (COMPLETED, FAILED, CANCELLED, SKIPPED); `from` is `null` when a cancel allowed several. */
  | { type: 'run.finished'; run: RunRecord; from: RunStatus | null };

export type RunEventType = RunEvent['type'];
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
/**
 * A subscriber. What it returns is awaited by the change that told it (so `run.started` can record
 * what must be known before the agent runs); long work belongs in the background.
 */
export type RunEventHandler<T extends RunEventType> = (event: RunEventOf<T>) => void | Promise<void>;

export class RunEventBus {
  private readonly handlers = new Map<RunEventType, RunEventHandler<never>[]>();
  private readonly background = new Set<Promise<unknown>>();

  constructor(private readonly logger: Logger) {}

  /** Calls `handler` for every event of `type` from now on; returns what unsubscribes it. */
  on<T extends RunEventType>(type: T, handler: RunEventHandler<T>): () => void {
    const list = this.handlers.get(type) ?? [];
    list.push(handler as unknown as RunEventHandler<never>);
    this.handlers.set(type, list);
    return () => {
      const at = list.indexOf(handler as unknown as RunEventHandler<never>);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /**
   * Tells every subscriber of the event's type, in the order they subscribed, and resolves when
   * each has. Never rejects: a subscriber's failure is logged and never undoes the change.
   */
  async emit(event: RunEvent): Promise<void> {
    const list = this.handlers.get(event.type);
    if (!list || list.length === 0) return;
    const pending: Promise<void>[] = [];
    for (const handler of [...list]) {
      try {
        const result = (handler as (event: RunEvent) => void | Promise<void>)(event);
        if (result) pending.push(result.catch((error: unknown) => this.failed(event, error)));
      } catch (error) {
        this.failed(event, error);
      }
    }
    if (pending.length > 0) await Promise.all(pending);
  }

  /** Work a subscriber carries on after an event (an answer posted in the background); {@link idle} waits for it. */
  track(work: Promise<unknown>): void {
    const tracked = work.catch(() => {}).finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  /** Resolves when no subscriber's background work is under way (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  private failed(event: RunEvent, error: unknown): void {
    this.logger.warn({ kind: 'run', runId: event.run.id, orgId: event.run.org_id, event: event.type, err: String(error) }, 'a run event subscriber failed');
  }
}
