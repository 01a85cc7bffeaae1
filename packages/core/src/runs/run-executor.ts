/**
 * The in-process run executor: takes PENDING runs (from events and manual dispatch) and runs
 * each in a sandbox — a conversation whose first message is the automation's instructions and
 * the event payload, the agent, its events — to COMPLETED, FAILED or CANCELLED. Bounded
 * concurrency overall and per org; transient failures (the sandbox would not start) retried
 * with backoff up to `maxAttempts`. Several executors (processes) may share one storage: a run is
 * claimed in a transaction with a lease that its executor renews, so no run executes twice at
 * once, a run whose executor died is taken again once its lease lapses, and a cancel made
 * through any process reaches the executor running it.
 * @module
 */
import type { AgentOutcome, AgentRunner } from '../ports/agent-runner.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { AppConversationRecord } from '../schemas/app-conversation.js';
import { appendConversationEvent, closeConversation, removeStoredSandbox, runAgentInConversation, SandboxStartError, startStoredSandbox } from './agent-session.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { RunRecord, RunStatus } from '../schemas/run.js';
import { FINAL_RUN_STATUSES } from '../schemas/run.js';
import type { ServiceContext } from '../services/context.js';
import type { SettingsService } from '../services/settings-service.js';

export interface RunExecutorOptions {
  runtime: SandboxRuntime;
  agent: AgentRunner;
  /** Runs executing at once, overall. Default 4. */
  concurrency?: number;
  /** Runs executing at once for one org. Default 2. */
  perOrgConcurrency?: number;
  /** Attempts per run, the first included. Default 3. */
  maxAttempts?: number;
  /** Wait before the second attempt; doubled for each further one. Default 1 s. */
  retryBackoffMs?: number;
  /** How often storage is polled for work besides `notify()`. Default 1 s. */
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

export class RunExecutor {
  private readonly inFlight = new Map<string, { orgId: string; controller: AbortController; done: Promise<void> }>();
  private readonly retryAt = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private leaseTimer: NodeJS.Timeout | null = null;
  readonly workerId: string;
  private readonly leaseMs: number;
  private running = false;
  private ticking: Promise<void> | null = null;
  private again = false;
  private readonly concurrency: number;
  private readonly perOrg: number;
  private readonly maxAttempts: number;

  constructor(
    private readonly context: ServiceContext,
    private readonly settings: SettingsService,
    private readonly options: RunExecutorOptions,
  ) {
    this.concurrency = options.concurrency ?? 4;
    this.perOrg = options.perOrgConcurrency ?? 2;
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
    this.timer = setInterval(() => {
      this.notify();
      void this.followCancels().catch(() => {});
    }, this.options.pollIntervalMs ?? 1000);
    this.timer.unref();
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
    if (this.timer) clearInterval(this.timer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.timer = null;
    this.leaseTimer = null;
    for (const entry of this.inFlight.values()) entry.controller.abort();
    await Promise.allSettled([...this.inFlight.values()].map((entry) => entry.done));
    await this.ticking;
  }

  /** New PENDING runs exist: look now rather than at the next poll. */
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

  /** Aborts the agent of a run executing here; its run ends CANCELLED. */
  cancel(runId: string): void {
    this.inFlight.get(runId)?.controller.abort();
  }

  /** Resolves when nothing is executing and no PENDING run is waiting (for tests and shutdown). */
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
    if (this.inFlight.size >= this.concurrency) return;
    const candidates = await this.context.storage.runs.listByStatus('PENDING', this.concurrency * 8);
    const now = this.context.clock.now().getTime();
    for (const run of candidates) {
      if (!this.running || this.inFlight.size >= this.concurrency) return;
      if (this.inFlight.has(run.id) || (this.retryAt.get(run.id) ?? 0) > now) continue;
      const orgRunning = [...this.inFlight.values()].filter((entry) => entry.orgId === run.org_id).length;
      if (orgRunning >= this.perOrg) continue;
      const claimed = await this.claim(run.id, run.org_id);
      if (!claimed) continue;
      const controller = new AbortController();
      const entry = { orgId: run.org_id, controller, done: Promise.resolve() };
      this.inFlight.set(run.id, entry);
      entry.done = this.execute(claimed, controller.signal).finally(() => {
        this.inFlight.delete(run.id);
        this.notify();
      });
    }
  }

  /** PENDING → RUNNING, unless someone else took or cancelled it first. */
  private claim(runId: string, orgId: string): Promise<RunRecord | null> {
    return this.context.storage.transaction(async (tx) => {
      const run = await tx.runs.get(orgId, runId);
      if (!run || run.status !== 'PENDING') return null;
      const started: RunRecord = {
        ...run,
        status: 'RUNNING',
        attempt: run.attempt + 1,
        started_at: this.now(),
        error_detail: null,
        lease_owner: this.workerId,
        lease_expires_at: this.leaseUntil(),
      };
      await tx.runs.update(started);
      return started;
    });
  }

  private async execute(run: RunRecord, signal: AbortSignal): Promise<void> {
    let sandboxId: string | null = null;
    try {
      const automation = await this.context.storage.automations.get(run.org_id, run.automation_id);
      if (!automation) return await this.finish(run, 'SKIPPED', 'the automation was deleted');
      const payloadJson = await this.payloadOf(run);
      sandboxId = await this.startSandbox(run, automation);
      const conversation = await this.openConversation(run, automation, sandboxId, payloadJson);
      const outcome = await this.runAgent(run, automation, conversation, sandboxId, payloadJson, signal);
      await closeConversation(this.context, conversation.id, outcome, { sandbox_status: 'MISSING' });
      // The sandbox goes before the run ends, so a finished run never has a live sandbox.
      const usedSandbox = sandboxId;
      sandboxId = null;
      await removeStoredSandbox(this.context, this.options.runtime, usedSandbox);
      if (outcome.status === 'CANCELLED' && !this.running) {
        // This executor is shutting down, the user did not cancel: another executor takes it.
        await this.release(run);
        return;
      }
      const status: RunStatus = outcome.status === 'TIMED_OUT' ? 'FAILED' : outcome.status;
      await this.finish({ ...run, conversation_id: conversation.id, sandbox_id: usedSandbox }, status, outcome.reason);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof TransientRunError && run.attempt < this.maxAttempts && this.running) {
        const backoff = (this.options.retryBackoffMs ?? 1000) * 2 ** (run.attempt - 1);
        this.retryAt.set(run.id, this.context.clock.now().getTime() + backoff);
        setTimeout(() => this.notify(), backoff).unref();
        await this.context.storage.runs.update({ ...run, status: 'PENDING', error_detail: `attempt ${run.attempt} failed: ${reason}`, lease_owner: null, lease_expires_at: null });
      } else {
        await this.finish(run, 'FAILED', reason).catch(() => {});
      }
    } finally {
      if (sandboxId) await removeStoredSandbox(this.context, this.options.runtime, sandboxId);
    }
  }

  private async payloadOf(run: RunRecord): Promise<string | null> {
    if (run.delivery_id) return (await this.context.storage.deliveries.get(run.org_id, run.delivery_id))?.payload_json ?? null;
    return run.dispatch_payload_json;
  }

  private async startSandbox(run: RunRecord, automation: AutomationRecord): Promise<string> {
    const { runtime } = this.options;
    const specId = automation.sandbox_spec_id ?? (await runtime.listSpecs())[0]?.id;
    if (!specId) throw new Error('the sandbox runtime offers no spec');
    try {
      return (await startStoredSandbox(this.context, runtime, { userId: automation.created_by, orgId: run.org_id }, specId)).id;
    } catch (error) {
      if (error instanceof SandboxStartError) throw new TransientRunError(error.message);
      throw error;
    }
  }

  private async openConversation(run: RunRecord, automation: AutomationRecord, sandboxId: string, payloadJson: string | null): Promise<AppConversationRecord> {
    const now = this.now();
    const conversation: AppConversationRecord = {
      id: this.context.ids.newId('conv'),
      created_by_user_id: automation.created_by,
      org_id: run.org_id,
      run_id: run.id,
      sandbox_id: sandboxId,
      selected_repository: automation.selected_repository,
      selected_branch: null,
      git_provider: null,
      title: automation.name,
      trigger: 'automation',
      pr_number: [],
      llm_model: automation.llm_model,
      sandbox_status: 'RUNNING',
      execution_status: 'running',
      created_at: now,
      updated_at: now,
    };
    await this.context.storage.conversations.insert(conversation);
    const message = payloadJson === null ? automation.instructions : `${automation.instructions}\n\nEvent payload:\n${payloadJson}`;
    await appendConversationEvent(this.context, conversation.id, { kind: 'message', source: 'user', message, data: null });
    await this.context.storage.runs.update({ ...run, conversation_id: conversation.id, sandbox_id: sandboxId });
    return conversation;
  }

  private async runAgent(
    run: RunRecord,
    automation: AutomationRecord,
    conversation: AppConversationRecord,
    sandboxId: string,
    payloadJson: string | null,
    signal: AbortSignal,
  ): Promise<AgentOutcome> {
    const settings = await this.settings.agentSettings(automation.created_by);
    if (automation.llm_model) settings.llmModel = automation.llm_model;
    const timeoutSeconds = automation.timeout_seconds ?? this.options.defaultTimeoutSeconds ?? 1800;
    return runAgentInConversation(
      this.context,
      this.options.agent,
      {
        runtime: this.options.runtime,
        sandboxId,
        conversationId: conversation.id,
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

  /** Ends a run, unless it already ended (a user's cancel wins over the agent's result). */
  private async finish(run: RunRecord, status: RunStatus, reason: string | null): Promise<void> {
    await this.context.storage.transaction(async (tx) => {
      const current = await tx.runs.get(run.org_id, run.id);
      if (!current || FINAL_RUN_STATUSES.includes(current.status)) return;
      // Our lease lapsed and another executor took the run: its result is the one that counts.
      if (current.lease_owner && current.lease_owner !== this.workerId) return;
      await tx.runs.update({
        ...current,
        conversation_id: run.conversation_id ?? current.conversation_id,
        sandbox_id: run.sandbox_id ?? current.sandbox_id,
        status,
        error_detail: status === 'COMPLETED' ? null : reason,
        completed_at: this.now(),
        lease_owner: null,
        lease_expires_at: null,
      });
    });
  }

  /** Aborts the agents of runs cancelled meanwhile (through this process or another). */
  private async followCancels(): Promise<void> {
    for (const [runId, entry] of this.inFlight) {
      const run = await this.context.storage.runs.get(entry.orgId, runId);
      if (!run || run.status === 'CANCELLED') entry.controller.abort();
    }
  }

  /** Hands a run this executor holds back to the queue, unless it ended meanwhile. */
  private async release(run: RunRecord): Promise<void> {
    await this.context.storage.transaction(async (tx) => {
      const current = await tx.runs.get(run.org_id, run.id);
      if (!current || current.status !== 'RUNNING' || current.lease_owner !== this.workerId) return;
      await tx.runs.update({
        ...current,
        status: 'PENDING',
        attempt: Math.max(0, current.attempt - 1),
        error_detail: 'interrupted: its executor shut down',
        lease_owner: null,
        lease_expires_at: null,
      });
    });
  }

  /** Extends the leases of the runs executing here. */
  private async renewLeases(): Promise<void> {
    for (const [runId, entry] of this.inFlight) {
      await this.context.storage.transaction(async (tx) => {
        const run = await tx.runs.get(entry.orgId, runId);
        if (run?.status === 'RUNNING' && run.lease_owner === this.workerId) await tx.runs.update({ ...run, lease_expires_at: this.leaseUntil() });
      });
    }
  }

  /**
   * RUNNING runs whose lease lapsed belong to an executor that died: back to PENDING for another
   * attempt, or FAILED when they had their last one.
   */
  private async recoverLapsed(): Promise<void> {
    const now = this.context.clock.now().getTime();
    const lapsed = (run: RunRecord) => !this.inFlight.has(run.id) && (!run.lease_expires_at || Date.parse(run.lease_expires_at) <= now);
    for (const candidate of (await this.context.storage.runs.listByStatus('RUNNING', 1000)).filter(lapsed)) {
      await this.context.storage.transaction(async (tx) => {
        const run = await tx.runs.get(candidate.org_id, candidate.id);
        if (!run || run.status !== 'RUNNING' || !lapsed(run)) return;
        const reason = `attempt ${run.attempt} was interrupted: its executor stopped`;
        if (run.attempt >= this.maxAttempts) {
          await tx.runs.update({ ...run, status: 'FAILED', error_detail: reason, completed_at: this.now(), lease_owner: null, lease_expires_at: null });
        } else {
          await tx.runs.update({ ...run, status: 'PENDING', error_detail: reason, lease_owner: null, lease_expires_at: null });
        }
      });
    }
    this.notify();
  }

  private leaseUntil(): string {
    return new Date(this.context.clock.now().getTime() + this.leaseMs).toISOString();
  }

  private now(): string {
    return this.context.clock.now().toISOString();
  }
}
