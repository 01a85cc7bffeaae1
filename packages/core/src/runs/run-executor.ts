/**
 * The run executor: queue mechanics only. It claims PENDING runs from the {@link RunQueue},
 * renews their leases, and hands each to an agent job (`runAgentJob`: a sandbox, the repository,
 * a conversation whose first message is the automation's instructions and the event payload,
 * the agent) — then writes the run's outcome, retries it, or hands it back.
 *
 * A run is one state machine (DESIGN §11): every status change is a compare-and-set, made only
 * while the run is in the state this executor left it in (RUNNING, held under its lease). So a
 * cancel made through any process wins over whatever the executor was about to write: attaching
 * the conversation, a retry, the final status — each finds the run CANCELLED and writes nothing,
 * and the executor stops. Executors in several processes share the work through the queue, which
 * holds the per-org and global limits across all of them; they hear of new runs and of cancels
 * through the storage's change feed, and poll as a safety net.
 * @module
 */
import { runAgentJob, type AgentJobEnd, type AgentJobServices } from '../agents/agent-job.js';
import type { ServiceContext } from '../kernel/context.js';
import { logsAt } from '../ports/logger.js';
import type { RecoveredRuns, RunCompletion, RunQueue, RunRef } from '../ports/run-queue.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { RunRecord } from '../schemas/run.js';
import { SandboxStartError } from '../sandboxes/stored-sandbox.js';
import { noteRunTransition } from './run-events.js';
import { fenceEarlierAttempt, planRunAttempt } from './run-plan.js';
import type { RunReporter } from '../github/run-reporter.js';
import { contextOf, inSpan, SpanKind } from '../telemetry/tracing.js';
import { context as otelContext, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * What became of the attempt, on its span: the final status, `released` (handed back at
 * shutdown), `retrying`, or `lost` (cancelled or taken over meanwhile). A FAILED run's span is
 * marked failed; its reason is in the log line that carries the span's ids, not in the span.
 */
function noteRunSpan(outcome: string): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttribute('agent_platform.run.status', outcome);
  if (outcome === 'FAILED') span.setStatus({ code: SpanStatusCode.ERROR, message: 'run failed' });
}

export interface RunExecutorOptions {
  /** Where runs are claimed from. Default: the storage's own queue (`storage.runQueue`). */
  queue?: RunQueue;
  /** Runs this executor (process) executes at once. Default 4. */
  concurrency?: number;
  /** Runs RUNNING at once for one org, counted over every process sharing the storage. Default 2. */
  perOrgConcurrency?: number;
  /** Runs RUNNING at once overall, counted over every process sharing the storage. Default: no limit. */
  globalConcurrency?: number;
  /** Attempts per run, the first included. Default 3. */
  maxAttempts?: number;
  /** Wait before the second attempt; doubled for each further one. Default 1 s. */
  retryBackoffMs?: number;
  /** How often the queue is polled (and running runs checked for cancels) besides wake-ups. Default 1 s. */
  pollIntervalMs?: number;
  /** Time limit for automations that set none. Default 30 minutes. */
  defaultTimeoutSeconds?: number;
  /** This executor's name in run leases. Default: a fresh random id. */
  workerId?: string;
  /**
   * How long a claimed run stays this executor's without a renewal. Leases are renewed every
   * third of it while the run executes; a run whose lease lapsed (its worker died) is taken
   * again by any executor. Default 30 s.
   */
  leaseMs?: number;
}

/** Why an executing run was stopped from outside its agent. */
type StopReason = 'cancelled' | 'shutdown' | 'lease-lost';

/** How often an executor asks its reporter for outcome comments owed by workers that died. */
const REPORT_SWEEP_MS = 60_000;

const STOP_DESCRIPTIONS: Record<StopReason, string> = {
  cancelled: 'cancelled',
  shutdown: 'the executor shut down',
  'lease-lost': 'the run was taken over after its lease lapsed',
};

interface InFlight {
  ref: RunRef;
  controller: AbortController;
  done: Promise<void>;
  /** Until when the lease is surely ours (ms, this clock): the last expiry written by a claim or renewal that succeeded. */
  heldUntil: number;
}

export class RunExecutor {
  private readonly inFlight = new Map<string, InFlight>();
  private pollTimer: NodeJS.Timeout | null = null;
  private leaseTimer: NodeJS.Timeout | null = null;
  private reportTimer: NodeJS.Timeout | null = null;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  readonly workerId: string;
  private readonly queue: RunQueue;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private running = false;
  private ticking: Promise<void> | null = null;
  private again = false;
  /** A stop began: nothing more is claimed, while the runs executing here may still finish. */
  private draining = false;
  private stopping: Promise<void> | null = null;
  /** Ends the grace of the stop under way: the runs still executing are handed back. */
  private endGrace: () => void = () => {};

  constructor(
    private readonly context: ServiceContext,
    /** The sandbox runtime, the agent and the owner's settings every run's job is built from. */
    private readonly jobs: AgentJobServices,
    private readonly options: RunExecutorOptions = {},
    /**
     * Told of each attempt's start (awaited only while it records the outcome comment as owed)
     * and each run's end (reporting back to GitHub); asked every minute for comments owed by
     * workers that died.
     */
    private readonly reporter: RunReporter | null = null,
  ) {
    this.queue = options.queue ?? context.storage.runQueue;
    this.concurrency = options.concurrency ?? 4;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.workerId = options.workerId ?? context.ids.newId('wkr');
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  /** Takes back runs whose worker died (lapsed leases), then starts taking work. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.draining = false;
    this.stopping = null;
    await this.recoverLapsed().catch(() => {
      // Storage unavailable: the lease timer tries again.
    });
    this.pollTimer = setInterval(() => {
      this.notify();
      void this.followCancels().catch(() => {});
    }, this.options.pollIntervalMs ?? 1000);
    this.pollTimer.unref();
    this.leaseTimer = setInterval(
      () => {
        // First, without the storage (which may hang): stop what may no longer be ours.
        this.fenceExpiring();
        void this.renewLeases()
          .then(() => this.recoverLapsed())
          .catch(() => {});
      },
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    this.leaseTimer.unref();
    if (this.reporter) {
      const reporter = this.reporter;
      void reporter.sweep();
      this.reportTimer = setInterval(() => void reporter.sweep(), REPORT_SWEEP_MS);
      this.reportTimer.unref();
    }
    this.notify();
  }

  /**
   * Stops taking work at once, then stops the agents running here; their runs go back to PENDING
   * (the attempt not counted, the lease cleared) for another executor to take straight away.
   * With `graceMs`, the runs executing here first get that long to finish on their own (their
   * leases still renewed, their cancels still followed); only those still executing then are
   * stopped and handed back. Default 0. A second call joins the first; its grace may end it sooner.
   */
  async stop(options: { graceMs?: number } = {}): Promise<void> {
    const graceMs = options.graceMs ?? 0;
    if (!(graceMs >= 0)) throw new RangeError(`graceMs must be 0 or more, got ${graceMs}`);
    this.draining = true;
    if (!this.stopping) {
      const graceOver = new Promise<void>((resolve) => (this.endGrace = resolve));
      this.stopping = this.drain(graceOver);
    }
    // setTimeout takes at most 2^31 - 1 ms (about 24.8 days).
    const timer = setTimeout(() => this.endGrace(), Math.min(graceMs, 2 ** 31 - 1));
    if (graceMs === 0) this.endGrace();
    await this.stopping.finally(() => clearTimeout(timer));
  }

  private async drain(graceOver: Promise<void>): Promise<void> {
    for (const timer of this.retryTimers) clearTimeout(timer);
    // A claim under way lands its runs among those executing here; no other is claimed from now on.
    await this.ticking;
    await Promise.race([graceOver, Promise.allSettled([...this.inFlight.values()].map((entry) => entry.done))]);
    const left = [...this.inFlight.values()];
    if (left.length > 0) this.context.logger.info({ runs: left.length }, 'executor stopping: handing back the runs still executing');
    for (const entry of left) entry.controller.abort('shutdown' satisfies StopReason);
    await Promise.allSettled(left.map((entry) => entry.done));
    this.running = false;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    if (this.reportTimer) clearInterval(this.reportTimer);
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    this.pollTimer = null;
    this.leaseTimer = null;
    this.reportTimer = null;
    await this.ticking;
  }

  /** New PENDING runs may exist: claim now rather than at the next poll. */
  notify(): void {
    if (!this.running || this.draining) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    // In no trace: a claim woken by a delivery's announcement is not that delivery's work (each
    // run's span is joined to its own delivery's trace in `execute`).
    this.ticking = otelContext
      .with(ROOT_CONTEXT, () => this.tick())
      .catch(() => {
        // Storage unavailable: the next poll retries.
      })
      .finally(() => {
        this.ticking = null;
        if (this.again) {
          this.again = false;
          this.notify();
        }
      });
  }

  /** Stops the agent of a run executing here (it was cancelled); writes nothing itself. */
  cancel(runId: string): void {
    this.inFlight.get(runId)?.controller.abort('cancelled' satisfies StopReason);
  }

  /** Whether this executor is executing the run now. */
  isExecuting(runId: string): boolean {
    return this.inFlight.has(runId);
  }

  /** Resolves when nothing is executing here, no run is claimable and no run's report is under way (for tests and shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      await this.ticking;
      await Promise.allSettled([...this.inFlight.values()].map((entry) => entry.done));
      const pending = await this.context.storage.runs.listByStatus('PENDING', 1);
      if (this.inFlight.size === 0 && !this.ticking && (pending.length === 0 || !this.running || this.draining)) return await this.reporter?.idle();
      await new Promise((resolve) => setTimeout(resolve, 20));
      this.notify();
    }
  }

  private async tick(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (!this.running || this.draining || free <= 0) return;
    const claimed = await this.queue.claim({
      owner: this.workerId,
      max: free,
      leaseMs: this.leaseMs,
      now: this.context.clock.now(),
      limits: { perOrg: this.options.perOrgConcurrency ?? 2, global: this.options.globalConcurrency ?? Infinity },
    });
    for (const run of claimed) {
      const controller = new AbortController();
      const heldUntil = run.lease_expires_at ? Date.parse(run.lease_expires_at) : this.context.clock.now().getTime() + this.leaseMs;
      const entry: InFlight = { ref: { orgId: run.org_id, id: run.id }, controller, done: Promise.resolve(), heldUntil };
      this.inFlight.set(run.id, entry);
      entry.done = this.execute(run, controller.signal)
        .catch(() => {
          // Storage failed while writing the outcome: the lease lapses and another attempt follows.
        })
        .finally(() => {
          this.inFlight.delete(run.id);
          this.notify();
        });
    }
  }

  /**
   * Executes one claimed run in its span (`agent_platform.run`), a child of the span that created
   * the run (its delivery's), whichever process that was; the agent's spans are its children.
   */
  private execute(run: RunRecord, signal: AbortSignal): Promise<void> {
    const attributes: Record<string, string | number> = {
      'agent_platform.run.id': run.id,
      'agent_platform.automation.id': run.automation_id,
      'agent_platform.org.id': run.org_id,
      'agent_platform.run.attempt': run.attempt,
    };
    if (run.delivery_id) attributes['agent_platform.delivery.id'] = run.delivery_id;
    const parent = contextOf(run.trace_parent);
    return inSpan(this.context.telemetry.tracer, 'agent_platform.run', { parent, kind: SpanKind.CONSUMER, attributes }, () => {
      // Logged (and `run.started` emitted) in the run's span, so the line carries its ids.
      noteRunTransition(this.context, run, 'PENDING');
      return this.executeRun(run, signal);
    });
  }

  private async executeRun(run: RunRecord, signal: AbortSignal): Promise<void> {
    const ref = { orgId: run.org_id, id: run.id };
    const automation = await this.context.storage.automations.get(run.org_id, run.automation_id);
    if (!automation) {
      await this.finish(ref, { status: 'SKIPPED', error_detail: 'the automation was deleted', completed_at: this.now() });
      return;
    }
    await this.reporter?.started(run, automation);
    let stop = null as StopReason | null;
    try {
      await fenceEarlierAttempt(this.context, this.jobs.runtime, run);
      const plan = await planRunAttempt(this.context, run, automation, this.timeoutOf(automation));
      const result = await runAgentJob(
        this.jobs,
        { ...plan, signal },
        {
          // Attached only while the run is still ours: a cancel that landed meanwhile wins, and the job stops.
          conversationOpened: async (conversation) =>
            Boolean(
              await this.context.storage.runs.transition(
                run.org_id,
                run.id,
                { from: ['RUNNING'], leaseOwner: this.workerId },
                { conversation_id: conversation.id, sandbox_id: conversation.sandbox_id },
              ),
            ),
          closing: async (end) => {
            if (!end.stopped) return { outcome: end.outcome };
            stop = await this.whyStopped(run, end);
            return { outcome: { status: 'CANCELLED', reason: STOP_DESCRIPTIONS[stop] } };
          },
        },
      );
      if (stop) return await this.stopped(run, stop);
      const { outcome } = result;
      await this.finish(ref, {
        status: outcome.status === 'COMPLETED' ? 'COMPLETED' : 'FAILED',
        error_detail: outcome.status === 'COMPLETED' ? null : (outcome.reason ?? `the agent ended ${outcome.status}`),
        completed_at: this.now(),
        metrics: outcome.metrics ?? null,
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (stop || signal.aborted) return await this.stopped(run, stop ?? (signal.reason as StopReason));
      // A sandbox that would not start may start on another attempt; anything else would fail the same way again.
      if (error instanceof SandboxStartError && run.attempt < this.maxAttempts && this.running) {
        await this.retryLater(run, reason);
      } else {
        await this.finish(ref, { status: 'FAILED', error_detail: reason, completed_at: this.now() });
      }
    }
  }

  /** Writes the run's final status (if it is still ours: a cancel wins) and logs the transition. */
  private async finish(ref: RunRef, completion: RunCompletion): Promise<void> {
    const finished = await this.queue.complete(this.workerId, ref, completion);
    if (finished) {
      noteRunTransition(this.context, finished, 'RUNNING');
      this.reporter?.finished(finished);
    }
    noteRunSpan(finished?.status ?? 'lost');
  }

  /**
   * Why the job stopped: its signal's reason (cancelled, shut down, lease lost) or, when a
   * compare-and-set found the run no longer ours, what the run says — only a cancel (or a lost
   * lease, whose new holder writes the outcome) does that.
   */
  private async whyStopped(run: RunRecord, end: AgentJobEnd): Promise<StopReason> {
    if (end.reason === 'cancelled' || end.reason === 'shutdown' || end.reason === 'lease-lost') return end.reason;
    const current = await this.context.storage.runs.get(run.org_id, run.id).catch(() => null);
    return current?.status === 'CANCELLED' ? 'cancelled' : 'lease-lost';
  }

  /**
   * The run was stopped from outside while it executed here: cancelled (its status is written
   * already), its lease lost (another executor has it), or shut down — then it is handed back,
   * the attempt not counted. Its conversation has said so already.
   */
  private async stopped(run: RunRecord, reason: StopReason): Promise<void> {
    if (reason === 'cancelled') {
      const cancelled = await this.context.storage.runs.get(run.org_id, run.id).catch(() => null);
      if (cancelled?.status === 'CANCELLED') this.reporter?.finished(cancelled);
    }
    if (reason !== 'shutdown') return noteRunSpan(reason === 'cancelled' ? 'CANCELLED' : 'lost');
    const released = await this.queue.release(
      this.workerId,
      { orgId: run.org_id, id: run.id },
      {
        error_detail: 'interrupted: its executor shut down',
        not_before: null,
        attempt: Math.max(0, run.attempt - 1),
      },
    );
    if (released) noteRunTransition(this.context, released, 'RUNNING');
    noteRunSpan('released');
    await this.context.announce({ type: 'runs.pending' });
  }

  /** Hands the run back for another attempt after a backoff, unless it was cancelled meanwhile. */
  private async retryLater(run: RunRecord, reason: string): Promise<void> {
    const backoff = (this.options.retryBackoffMs ?? 1000) * 2 ** (run.attempt - 1);
    const notBefore = new Date(this.context.clock.now().getTime() + backoff).toISOString();
    const released = await this.queue.release(
      this.workerId,
      { orgId: run.org_id, id: run.id },
      {
        error_detail: `attempt ${run.attempt} failed: ${reason}`,
        not_before: notBefore,
        attempt: run.attempt,
      },
    );
    if (!released) return;
    noteRunTransition(this.context, released, 'RUNNING', 'warn');
    noteRunSpan('retrying');
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.notify();
    }, backoff);
    timer.unref();
    this.retryTimers.add(timer);
  }

  private timeoutOf(automation: AutomationRecord): number {
    return automation.timeout_seconds ?? this.options.defaultTimeoutSeconds ?? 1800;
  }

  /** Stops the agents of runs cancelled meanwhile (the safety net behind the change feed). */
  private async followCancels(): Promise<void> {
    for (const [runId, entry] of this.inFlight) {
      const run = await this.context.storage.runs.get(entry.ref.orgId, runId);
      if (!run || run.status === 'CANCELLED') this.cancel(runId);
    }
  }

  /** Extends the leases of the runs executing here; stops those no longer ours. */
  private async renewLeases(): Promise<void> {
    if (this.inFlight.size === 0) return;
    const refs = [...this.inFlight.values()].map((entry) => entry.ref);
    const untilMs = this.context.clock.now().getTime() + this.leaseMs;
    const kept = new Set((await this.queue.renew(this.workerId, refs, new Date(untilMs).toISOString())).map((ref) => ref.id));
    for (const ref of refs) {
      const entry = this.inFlight.get(ref.id);
      if (entry && kept.has(ref.id)) entry.heldUntil = Math.max(entry.heldUntil, untilMs);
      if (kept.has(ref.id) || !entry) continue;
      const current = await this.context.storage.runs.get(ref.orgId, ref.id);
      entry.controller.abort((current?.status === 'CANCELLED' ? 'cancelled' : 'lease-lost') satisfies StopReason);
    }
  }

  /**
   * Self-fencing: a run whose lease could not be renewed (the storage unreachable or too slow) and
   * ends within half a lease is stopped here, before it lapses and another executor may take the
   * run — so two attempts never run at once, even when this process lives on cut off from the
   * storage. Renewals run every third of a lease, so a healthy lease always has more left.
   */
  private fenceExpiring(): void {
    const now = this.context.clock.now().getTime();
    for (const entry of this.inFlight.values()) {
      if (entry.controller.signal.aborted || entry.heldUntil - now >= this.leaseMs / 2) continue;
      this.context.logger.warn({ kind: 'run', runId: entry.ref.id, orgId: entry.ref.orgId }, 'run stopped here: its lease could not be renewed in time');
      entry.controller.abort('lease-lost' satisfies StopReason);
    }
  }

  /** RUNNING runs whose lease lapsed belong to an executor that died: back to PENDING, or FAILED. */
  private async recoverLapsed(): Promise<void> {
    const recovered = await this.queue.recover(this.context.clock.now(), this.maxAttempts);
    await this.logRecovered(recovered);
    if (recovered.requeued.length > 0) {
      await this.context.announce({ type: 'runs.pending' });
      this.notify();
    }
  }

  /**
   * Logs the runs taken back from a dead executor, and tells subscribers of those that failed.
   * The queue names them only, so each is read (recoveries are rare); one that moved on meanwhile
   * is noted by whoever moved it.
   */
  private async logRecovered(recovered: RecoveredRuns): Promise<void> {
    const requeued = logsAt(this.context.logger, 'warn') ? recovered.requeued : [];
    const moved = [...requeued.map((ref) => [ref, 'PENDING'] as const), ...recovered.failed.map((ref) => [ref, 'FAILED'] as const)];
    for (const [ref, to] of moved) {
      const run = await this.context.storage.runs.get(ref.orgId, ref.id).catch(() => null);
      if (run?.status !== to) continue;
      noteRunTransition(this.context, run, 'RUNNING', 'warn');
      if (to === 'FAILED') this.reporter?.finished(run);
    }
  }

  private now(): string {
    return this.context.clock.now().toISOString();
  }
}
