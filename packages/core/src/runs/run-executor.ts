/**
 * The run executor: claims PENDING runs from the {@link RunQueue} and runs each in an
 * {@link AgentSession} — a sandbox, a conversation whose first message is the automation's
 * instructions and the event payload, the repository cloned into the sandbox, the agent — to
 * COMPLETED, FAILED or SKIPPED.
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
import type { AgentOutcome, AgentRunner } from '../ports/agent-runner.js';
import { logsAt } from '../ports/logger.js';
import type { RecoveredRuns, RunCompletion, RunQueue, RunRef } from '../ports/run-queue.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { RunRecord } from '../schemas/run.js';
import type { ServiceContext } from '../services/context.js';
import type { SettingsService } from '../services/settings-service.js';
import type { AgentSettings } from '../ports/agent-runner.js';
import { AgentSession, SandboxStartError } from './agent-session.js';
import { runRepository } from './event-repository.js';
import { prepareOwnerRepository, RepositoryError, type RepositoryTarget } from './repository.js';
import { newConversationRecord } from './records.js';
import { noteRunTransition } from './run-events.js';

export interface RunExecutorOptions {
  runtime: SandboxRuntime;
  agent: AgentRunner;
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

/** Thrown for failures worth another attempt. */
class TransientRunError extends Error {}

/** Why an executing run was stopped from outside its agent. */
type StopReason = 'cancelled' | 'shutdown' | 'lease-lost';

interface InFlight {
  ref: RunRef;
  controller: AbortController;
  done: Promise<void>;
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
  private running = false;
  private ticking: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly context: ServiceContext,
    private readonly settings: SettingsService,
    private readonly options: RunExecutorOptions,
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
    await this.recoverLapsed().catch(() => {
      // Storage unavailable: the lease timer tries again.
    });
    this.pollTimer = setInterval(() => {
      this.notify();
      void this.followCancels().catch(() => {});
    }, this.options.pollIntervalMs ?? 1000);
    this.pollTimer.unref();
    this.leaseTimer = setInterval(() => {
      void this.renewLeases()
        .then(() => this.recoverLapsed())
        .catch(() => {});
    }, Math.max(10, Math.floor(this.leaseMs / 3)));
    this.leaseTimer.unref();
    this.notify();
  }

  /**
   * Stops taking work and stops the agents running here; their runs go back to PENDING (the
   * attempt not counted) for another executor, or this one after a restart.
   */
  async stop(): Promise<void> {
    this.running = false;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    this.pollTimer = null;
    this.leaseTimer = null;
    for (const entry of this.inFlight.values()) entry.controller.abort('shutdown' satisfies StopReason);
    await Promise.allSettled([...this.inFlight.values()].map((entry) => entry.done));
    await this.ticking;
  }

  /** New PENDING runs may exist: claim now rather than at the next poll. */
  notify(): void {
    if (!this.running) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.tick()
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

  /** Resolves when nothing is executing here and no run is claimable (for tests and shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      await this.ticking;
      await Promise.allSettled([...this.inFlight.values()].map((entry) => entry.done));
      const pending = await this.context.storage.runs.listByStatus('PENDING', 1);
      if (this.inFlight.size === 0 && !this.ticking && (pending.length === 0 || !this.running)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
      this.notify();
    }
  }

  private async tick(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (!this.running || free <= 0) return;
    const claimed = await this.queue.claim({
      owner: this.workerId,
      max: free,
      leaseMs: this.leaseMs,
      now: this.context.clock.now(),
      limits: { perOrg: this.options.perOrgConcurrency ?? 2, global: this.options.globalConcurrency ?? Infinity },
    });
    for (const run of claimed) {
      noteRunTransition(this.context, run, 'PENDING');
      const controller = new AbortController();
      const entry: InFlight = { ref: { orgId: run.org_id, id: run.id }, controller, done: Promise.resolve() };
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

  private async execute(run: RunRecord, signal: AbortSignal): Promise<void> {
    const ref = { orgId: run.org_id, id: run.id };
    const automation = await this.context.storage.automations.get(run.org_id, run.automation_id);
    if (!automation) {
      await this.finish(ref, { status: 'SKIPPED', error_detail: 'the automation was deleted', completed_at: this.now() });
      return;
    }
    const session = new AgentSession(this.context, this.options.runtime, this.options.agent, { userId: automation.created_by, orgId: run.org_id });
    try {
      const { payloadJson, source } = await this.triggerOf(run);
      const repository = runRepository(automation.selected_repository, source, payloadJson);
      await this.openSandbox(session, automation);
      if (signal.aborted) return await this.stopped(run, session, signal);
      const conversation = await session.openConversation(
        newConversationRecord(this.context, {
          owner: { userId: automation.created_by, orgId: run.org_id },
          sandboxId: session.sandboxId as string,
          trigger: 'automation',
          runId: run.id,
          title: automation.name,
          selectedRepository: repository?.repository ?? null,
          selectedBranch: repository?.branch ?? null,
          llmModel: automation.llm_model,
          running: true,
        }),
        payloadJson === null ? automation.instructions : `${automation.instructions}\n\nEvent payload:\n${payloadJson}`,
      );
      // Attached only while the run is still ours: a cancel that landed meanwhile wins.
      const attached = await this.context.storage.runs.transition(
        run.org_id,
        run.id,
        { from: ['RUNNING'], leaseOwner: this.workerId },
        { conversation_id: conversation.id, sandbox_id: session.sandboxId },
      );
      if (!attached || signal.aborted) return await this.stopped(run, session, signal);
      const settings = await this.settings.agentSettings(automation.created_by);
      const outcome =
        (repository && (await this.prepareRepository(repository, session, settings, signal))) ??
        (await this.runAgent(run, automation, session, payloadJson, settings, signal));
      if (signal.aborted) return await this.stopped(run, session, signal);
      // The sandbox goes before the run ends, so a finished run never has a live sandbox.
      await session.close(outcome, { removeSandbox: true });
      await this.finish(ref, {
        status: outcome.status === 'COMPLETED' ? 'COMPLETED' : 'FAILED',
        error_detail: outcome.status === 'COMPLETED' ? null : (outcome.reason ?? `the agent ended ${outcome.status}`),
        completed_at: this.now(),
        metrics: outcome.metrics ?? null,
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (signal.aborted) return await this.stopped(run, session, signal);
      if (error instanceof TransientRunError && run.attempt < this.maxAttempts && this.running) {
        await this.retryLater(run, reason);
      } else {
        await this.finish(ref, { status: 'FAILED', error_detail: reason, completed_at: this.now() });
      }
    } finally {
      await session.dispose();
    }
  }

  /** Writes the run's final status (if it is still ours: a cancel wins) and logs the transition. */
  private async finish(ref: RunRef, completion: RunCompletion): Promise<void> {
    const finished = await this.queue.complete(this.workerId, ref, completion);
    if (finished) noteRunTransition(this.context, finished, 'RUNNING');
  }

  /**
   * The run was stopped from outside while it executed here: cancelled (its status is written
   * already), shut down (hand it back, the attempt not counted), or its lease was lost (another
   * executor has it). The conversation, if any, says it stopped.
   */
  private async stopped(run: RunRecord, session: AgentSession, signal: AbortSignal): Promise<void> {
    // Not aborted: a compare-and-set found the run no longer ours, which only a cancel (or a lost
    // lease, whose new holder writes the outcome) does.
    const reason = (signal.aborted ? signal.reason : await this.whyLost(run)) as StopReason;
    const why = reason === 'shutdown' ? 'the executor shut down' : reason === 'lease-lost' ? 'the run was taken over after its lease lapsed' : 'cancelled';
    await session.close({ status: 'CANCELLED', reason: why }, { removeSandbox: true }).catch(() => {});
    if (reason === 'shutdown') {
      const released = await this.queue.release(this.workerId, { orgId: run.org_id, id: run.id }, {
        error_detail: 'interrupted: its executor shut down',
        not_before: null,
        attempt: Math.max(0, run.attempt - 1),
      });
      if (released) noteRunTransition(this.context, released, 'RUNNING');
      await this.context.announce({ type: 'runs.pending' });
    }
  }

  /** Why a run this executor held is no longer its own. */
  private async whyLost(run: RunRecord): Promise<StopReason> {
    const current = await this.context.storage.runs.get(run.org_id, run.id).catch(() => null);
    return current?.status === 'CANCELLED' ? 'cancelled' : 'lease-lost';
  }

  /** Hands the run back for another attempt after a backoff, unless it was cancelled meanwhile. */
  private async retryLater(run: RunRecord, reason: string): Promise<void> {
    const backoff = (this.options.retryBackoffMs ?? 1000) * 2 ** (run.attempt - 1);
    const notBefore = new Date(this.context.clock.now().getTime() + backoff).toISOString();
    const released = await this.queue.release(this.workerId, { orgId: run.org_id, id: run.id }, {
      error_detail: `attempt ${run.attempt} failed: ${reason}`,
      not_before: notBefore,
      attempt: run.attempt,
    });
    if (!released) return;
    noteRunTransition(this.context, released, 'RUNNING', 'warn');
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.notify();
    }, backoff);
    timer.unref();
    this.retryTimers.add(timer);
  }

  /** The run's event: its payload, and the source of the delivery (`null` for a manual dispatch). */
  private async triggerOf(run: RunRecord): Promise<{ payloadJson: string | null; source: string | null }> {
    if (!run.delivery_id) return { payloadJson: run.dispatch_payload_json, source: null };
    const delivery = await this.context.storage.deliveries.get(run.org_id, run.delivery_id);
    return { payloadJson: delivery?.payload_json ?? null, source: delivery?.source ?? null };
  }

  /**
   * Clones the run's repository (the automation's, or the GitHub event's) into the sandbox. A
   * failure is the run's outcome — FAILED with the reason, not retried: another attempt would
   * meet the same token and the same repository.
   */
  private async prepareRepository(target: RepositoryTarget, session: AgentSession, settings: AgentSettings, signal: AbortSignal): Promise<AgentOutcome | null> {
    try {
      await prepareOwnerRepository(this.options.runtime, session.sandboxId as string, settings, target, signal);
      return null;
    } catch (error) {
      if (error instanceof RepositoryError) return { status: 'FAILED', reason: error.message };
      throw error;
    }
  }

  private async openSandbox(session: AgentSession, automation: AutomationRecord): Promise<void> {
    try {
      await session.openSandbox(automation.sandbox_spec_id);
    } catch (error) {
      if (error instanceof SandboxStartError) throw new TransientRunError(error.message);
      throw error;
    }
  }

  private async runAgent(
    run: RunRecord,
    automation: AutomationRecord,
    session: AgentSession,
    payloadJson: string | null,
    settings: AgentSettings,
    signal: AbortSignal,
  ): Promise<AgentOutcome> {
    if (automation.llm_model) settings.llmModel = automation.llm_model;
    const timeoutSeconds = automation.timeout_seconds ?? this.options.defaultTimeoutSeconds ?? 1800;
    return session.run(
      {
        runId: run.id,
        instructions: automation.instructions,
        eventPayloadJson: payloadJson,
        settings,
        timeoutMs: timeoutSeconds * 1000,
        signal,
      },
      () => `timed out after ${timeoutSeconds} s`,
    );
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
    const until = new Date(this.context.clock.now().getTime() + this.leaseMs).toISOString();
    const kept = new Set((await this.queue.renew(this.workerId, refs, until)).map((ref) => ref.id));
    for (const ref of refs) {
      const entry = this.inFlight.get(ref.id);
      if (kept.has(ref.id) || !entry) continue;
      const current = await this.context.storage.runs.get(ref.orgId, ref.id);
      entry.controller.abort((current?.status === 'CANCELLED' ? 'cancelled' : 'lease-lost') satisfies StopReason);
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
      if (run?.status === to) noteRunTransition(this.context, run, 'RUNNING', 'warn');
    }
  }

  private now(): string {
    return this.context.clock.now().toISOString();
  }
}
