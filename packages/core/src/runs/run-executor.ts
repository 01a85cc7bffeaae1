/**
 * The run executor: queue mechanics only. It claims PENDING runs from the {@link RunQueue} within
 * the per-org and global limits, renews their leases, stops the runs it may no longer hold (a
 * cancel, a lease it could not renew, a shutdown), takes back runs whose worker died, and hands
 * each claimed run to its attempt (`run-attempt.ts`), which tells the run's story from start to
 * final status. Executors in several processes share the work through the queue; they hear of
 * new runs and of cancels through the storage's change feed, and poll as a safety net.
 * @module
 */
import type { AgentJobServices } from '../agents/agent-job.js';
import { stopWork } from '../agents/stop-reason.js';
import type { ServiceContext } from '../kernel/context.js';
import type { RecoveredRuns, RunQueue, RunRef } from '../ports/run-queue.js';
import { runAttempt, type AttemptEnd, type AttemptSettings } from './run-attempt.js';
import { HeldRun, noteRunTransition } from './run-lifecycle.js';
import { RunApprovals } from './run-approvals.js';
import { context as otelContext, ROOT_CONTEXT } from '@opentelemetry/api';

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
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  readonly workerId: string;
  private readonly queue: RunQueue;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly attemptSettings: AttemptSettings;
  /** Actions the agents of runs here hold for approval; answers reach them through {@link onControl}. */
  private readonly approvals: RunApprovals;
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
  ) {
    this.queue = options.queue ?? context.storage.runQueue;
    this.concurrency = options.concurrency ?? 4;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.workerId = options.workerId ?? context.ids.newId('wkr');
    this.leaseMs = options.leaseMs ?? 30_000;
    this.approvals = new RunApprovals(context);
    this.attemptSettings = {
      maxAttempts: this.maxAttempts,
      retryBackoffMs: options.retryBackoffMs ?? 1000,
      defaultTimeoutSeconds: options.defaultTimeoutSeconds ?? 1800,
      mayRetry: () => this.running,
      approvals: this.approvals,
    };
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
    for (const entry of left) stopWork(entry.controller, 'shutdown');
    await Promise.allSettled(left.map((entry) => entry.done));
    this.running = false;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    this.pollTimer = null;
    this.leaseTimer = null;
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
    // run's span is joined to its own delivery's trace by its attempt).
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

  /** A control request was written on a conversation: answers the action a run's agent here holds, if any. */
  onControl(conversationId: string): Promise<void> {
    return this.approvals.onControl(conversationId);
  }

  /** Stops the agent of a run executing here (it was cancelled); writes nothing itself. */
  cancel(runId: string): void {
    const entry = this.inFlight.get(runId);
    if (entry) stopWork(entry.controller, 'cancelled');
  }

  /** Whether this executor is executing the run now. */
  isExecuting(runId: string): boolean {
    return this.inFlight.has(runId);
  }

  /**
   * Resolves when nothing is executing here, no run is claimable, and what reacts to the runs'
   * events has settled (an answer on a thread, say) — for tests and shutdown.
   */
  async idle(): Promise<void> {
    for (;;) {
      await this.ticking;
      await Promise.allSettled([...this.inFlight.values()].map((entry) => entry.done));
      const pending = await this.context.storage.runs.listByStatus('PENDING', 1);
      if (this.inFlight.size === 0 && !this.ticking && (pending.length === 0 || !this.running || this.draining)) return await this.context.runEvents.idle();
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
      const held = new HeldRun(this.context, this.queue, this.workerId, run);
      // An earlier attempt of this run may still be ending here: its lease lapsed and the run came
      // back to this executor. The earlier one is stopped and ended first, so one process never has
      // two agents on one run (their writes pass the same owner's guards).
      const earlier = this.inFlight.get(run.id);
      if (earlier) stopWork(earlier.controller, 'lease-lost');
      this.inFlight.set(run.id, entry);
      entry.done = (earlier ? earlier.done.catch(() => {}) : Promise.resolve())
        .then(() => this.execute(held, entry, earlier !== undefined))
        .then((end) => {
          if (end) this.notifyAfter(end.retryAfterMs);
        })
        .catch(() => {
          // Storage failed while writing the outcome: the lease lapses and another attempt follows.
        })
        .finally(() => {
          if (this.inFlight.get(run.id) === entry) this.inFlight.delete(run.id);
          this.notify();
        });
    }
  }

  /**
   * Runs a claimed attempt — unless its lease is already too short to be sure of: a claim that
   * came back late (it waited on the storage, or on a link that stopped carrying packets, for
   * most of a lease) may hold a run another executor is about to take back. Such a run is handed
   * straight back, its attempt not counted, and its agent never starts.
   */
  private async execute(held: HeldRun, entry: InFlight, afterEarlier: boolean): Promise<AttemptEnd> {
    if (entry.controller.signal.aborted) return null;
    // The earlier attempt may have written the run's end before its stop reached it.
    if (afterEarlier && !(await this.stillHeld(held))) return null;
    if (entry.heldUntil - this.context.clock.now().getTime() < this.leaseMs / 2) {
      this.context.logger.warn(
        { kind: 'run', runId: held.ref.id, orgId: held.ref.orgId },
        'run handed back unstarted: its claim came back with too little of its lease left',
      );
      stopWork(entry.controller, 'lease-lost');
      await held.release(
        { error_detail: 'interrupted: its claim came back too late to be sure of its lease', not_before: null, attempt: Math.max(0, held.run.attempt - 1) },
        'released',
      );
      return null;
    }
    return runAttempt(this.context, this.jobs, held, entry.controller, this.attemptSettings);
  }

  /** Whether the run is still RUNNING on this attempt's claim. */
  private async stillHeld(held: HeldRun): Promise<boolean> {
    const current = await this.context.storage.runs.get(held.ref.orgId, held.ref.id);
    return current?.status === 'RUNNING' && current.lease_owner === this.workerId && current.attempt === held.run.attempt;
  }

  /** Looks for work again after `ms` (a retry's backoff), unless the executor stops first. */
  private notifyAfter(ms: number): void {
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.notify();
    }, ms);
    timer.unref();
    this.retryTimers.add(timer);
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
      stopWork(entry.controller, current?.status === 'CANCELLED' ? 'cancelled' : 'lease-lost');
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
      stopWork(entry.controller, 'lease-lost');
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
   * Tells of the runs taken back from a dead executor (back to PENDING, or FAILED after their last
   * attempt). The queue names them only, so each is read (recoveries are rare); one that moved on
   * meanwhile is told by whoever moved it.
   */
  private async logRecovered(recovered: RecoveredRuns): Promise<void> {
    const moved = [...recovered.requeued.map((ref) => [ref, 'PENDING'] as const), ...recovered.failed.map((ref) => [ref, 'FAILED'] as const)];
    for (const [ref, to] of moved) {
      const run = await this.context.storage.runs.get(ref.orgId, ref.id).catch(() => null);
      if (run?.status === to) await noteRunTransition(this.context, run, 'RUNNING', { level: 'warn' });
    }
  }
}
