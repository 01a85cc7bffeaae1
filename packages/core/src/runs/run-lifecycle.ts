/**
 * The one place a run's status changes. Each change is a compare-and-set in storage; when it
 * lands, it is told here, once: its log line, the outcome on the run's span, and a typed event on
 * the run event bus (`run.started`, `run.released`, `run.finished`) that whatever reacts to runs
 * subscribes to — the answer on the run's thread, outbound events, metrics. The change feed tells
 * other processes what they must act on (a cancel, new PENDING runs).
 *
 * Single changes are made here ({@link cancelRun}, and {@link HeldRun} for a run an executor holds
 * under its lease); changes the storage makes in batches or inside a transaction (a claim, the
 * recovery of lapsed leases, flow control while a delivery is recorded) are told here with
 * {@link noteRunTransition} once they are committed.
 * @module
 */
import type { ServiceContext } from '../kernel/context.js';
import type { RunEvent } from '../kernel/run-event-bus.js';
import type { LogLevel } from '../ports/logger.js';
import type { RunCompletion, RunQueue, RunRef, RunRelease } from '../ports/run-queue.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { RunRecord, RunStatus } from '../schemas/run.js';
import { FINAL_RUN_STATUSES } from '../schemas/vocabulary.js';
import { logRunTransition } from './run-log.js';
import { SpanStatusCode, trace } from '@opentelemetry/api';

/** The event a run's status now tells, if any (a run back to PENDING is released; final ones finished). */
function eventOf(run: RunRecord, from: RunStatus | null, automation: AutomationRecord | null): RunEvent | null {
  if (run.status === 'RUNNING') return { type: 'run.started', run, automation };
  if (run.status === 'PENDING') return from ? { type: 'run.released', run, from } : null;
  return FINAL_RUN_STATUSES.includes(run.status) ? { type: 'run.finished', run, from } : null;
}

/**
 * Tells of a change already committed: `run` as the change left it, moved from `from` (`null`
 * when the change allowed several). Resolves once every subscriber has taken it.
 */
export async function noteRunTransition(
  context: ServiceContext,
  run: RunRecord,
  from: RunStatus | null,
  options: { level?: LogLevel; automation?: AutomationRecord | null } = {},
): Promise<void> {
  logRunTransition(context.logger, run, from, options.level);
  const event = eventOf(run, from, options.automation ?? null);
  if (event) await context.runEvents.emit(event);
}

/**
 * Cancels a run that has not finished, from PENDING or RUNNING in one compare-and-set, so it wins
 * or loses against the executor's own changes as a whole; `null` when the run had finished (or is
 * not the org's). The process executing it hears of it through the change feed and stops its agent.
 */
export async function cancelRun(context: ServiceContext, ref: RunRef, reason: string): Promise<RunRecord | null> {
  const cancelled = await context.storage.runs.transition(
    ref.orgId,
    ref.id,
    { from: ['PENDING', 'RUNNING'] },
    { status: 'CANCELLED', completed_at: context.clock.now().toISOString(), error_detail: reason, lease_owner: null, lease_expires_at: null },
  );
  if (!cancelled) return null;
  await noteRunTransition(context, cancelled, null);
  await context.announce({ type: 'run.cancelled', orgId: cancelled.org_id, runId: cancelled.id });
  return cancelled;
}

/**
 * What became of an attempt, on the run's span: the final status, `released` (handed back at
 * shutdown), `retrying`, or `lost` (cancelled or taken over meanwhile). A FAILED run's span is
 * marked failed; its reason is in the log line that carries the span's ids, not in the span.
 */
function noteOnSpan(outcome: string): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttribute('agent_platform.run.status', outcome);
  if (outcome === 'FAILED') span.setStatus({ code: SpanStatusCode.ERROR, message: 'run failed' });
}

/**
 * A run an executor claimed and holds under its lease: every change it makes to the run goes
 * through here, only while the run is still RUNNING and its own — so a cancel made through any
 * process wins over whatever the executor was about to write, and the executor learns it lost.
 * Call its methods inside the run's span.
 */
export class HeldRun {
  readonly ref: RunRef;

  constructor(
    private readonly context: ServiceContext,
    private readonly queue: Pick<RunQueue, 'complete' | 'release'>,
    private readonly owner: string,
    /** The run as the claim left it (RUNNING, its attempt counted). */
    readonly run: RunRecord,
  ) {
    this.ref = { orgId: run.org_id, id: run.id };
  }

  /** Tells of the claim (which the queue made with others): the attempt started. */
  started(automation: AutomationRecord | null): Promise<void> {
    return noteRunTransition(this.context, this.run, 'PENDING', { automation });
  }

  /** Names the attempt's conversation and sandbox on the run; false when the run is no longer this executor's. */
  async attach(conversationId: string, sandboxId: string | null): Promise<boolean> {
    const attached = await this.context.storage.runs.transition(
      this.ref.orgId,
      this.ref.id,
      { from: ['RUNNING'], leaseOwner: this.owner },
      { conversation_id: conversationId, sandbox_id: sandboxId },
    );
    return attached !== null;
  }

  /** Writes the run's final status; false (nothing written) when it was cancelled or taken over meanwhile. */
  async finish(completion: RunCompletion): Promise<boolean> {
    const finished = await this.queue.complete(this.owner, this.ref, completion);
    noteOnSpan(finished?.status ?? 'lost');
    if (finished) await noteRunTransition(this.context, finished, 'RUNNING');
    return finished !== null;
  }

  /**
   * Hands the run back to PENDING: for a retry after a backoff (`retrying`), or because this
   * executor shuts down (`released`); false when it was no longer this executor's.
   */
  async release(release: RunRelease, why: 'retrying' | 'released'): Promise<boolean> {
    const released = await this.queue.release(this.owner, this.ref, release);
    noteOnSpan(released ? why : 'lost');
    if (!released) return false;
    await noteRunTransition(this.context, released, 'RUNNING', why === 'retrying' ? { level: 'warn' } : {});
    // Handed back at once: any executor may take it now (a retry waits out its backoff first).
    if (why === 'released') await this.context.announce({ type: 'runs.pending' });
    return true;
  }

  /** The attempt ended without a change of its own: the run was cancelled (told by whoever cancelled it) or taken over. */
  lost(cancelled: boolean): void {
    noteOnSpan(cancelled ? 'CANCELLED' : 'lost');
  }
}
