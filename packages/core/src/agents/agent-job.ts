/**
 * The agent job: one piece of an agent's work from start to end, the same for an automation run
 * and an API conversation — open the sandbox, prepare the repository, open the conversation, run
 * the agent, close — told in one direction: it reports its progress as it goes and returns one
 * result (completed, failed, cancelled or released). Its caller keeps only what is its own: a
 * run's lease and status, a start task's progress, a conversation's controls.
 *
 * A stop from outside is the plan's `signal`, aborted with a {@link StopReason}: the job notices
 * it between stages (and the agent within its steps), records the stop in the conversation, and
 * returns it as its result. The sandbox, when it is to go, goes in one place: as the job ends.
 * @module
 */
import { nowIso, type ServiceContext } from '../kernel/context.js';
import type { AgentHostTools, AgentOutcome, AgentPlatformTools, AgentRunInput, AgentRunner, AgentSettings } from '../ports/agent-runner.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { JobStagesNote } from '../schemas/agent-events.js';
import type { AppConversationRecord, ConversationEvent } from '../schemas/app-conversation.js';
import type { Principal } from '../schemas/principal.js';
import { removeStoredSandbox, startStoredSandbox } from '../sandboxes/stored-sandbox.js';
import { SandboxLostError, sandboxLoss } from '../sandboxes/lost-sandbox.js';
import { newConversationRecord, userMessageEvent, type NewConversation, type NewConversationEvent } from './conversation-record.js';
import { ConversationWriter } from './conversation-writer.js';
import { prepareOwnerRepository, repositoryEgressHosts, RepositoryError, type RepositoryTarget } from './git-checkout.js';
import { runAgent } from './run-agent.js';
import { STOP_DESCRIPTIONS, stopReasonOf, type StopReason } from './stop-reason.js';

/** What every job is built from, once per platform. */
export interface AgentJobServices {
  context: ServiceContext;
  runtime: SandboxRuntime;
  /** The agent; without one a job only opens its conversation (a plan with an `agent` task fails). */
  agent: AgentRunner | null;
  /** The owner's settings, decrypted: the repository's token and the agent's model and keys. */
  settingsOf(userId: string): Promise<AgentSettings>;
  /** The platform tools an agent gets for its owner (automations, webhook sources). */
  toolsFor?(owner: Principal): AgentPlatformTools;
}

export type AgentJobStage = 'sandbox' | 'repository' | 'conversation' | 'agent';

/** The agent's part of the work. */
export interface AgentTask {
  /** The automation run, when the agent works for one. */
  runId: string | null;
  /** The automation the work is for, whose budgets cover it too; `null` or absent for an API conversation. */
  automationId?: string | null;
  /** The task: an automation's instructions, or a conversation's first message. */
  instructions: string;
  eventPayloadJson: string | null;
  /** The model for this work, over the owner's `llm_model`. */
  llmModel: string | null;
  timeoutSeconds: number;
  /** Stored events to take up again (a resumed conversation), oldest first. */
  history?: AgentRunInput['history'];
  pendingMessages?: AgentRunInput['pendingMessages'];
  confirm?: AgentRunInput['confirm'];
  /** A run's attempt taking up the work of one that was interrupted (see `AgentRunInput.resumed`). */
  resumed?: AgentRunInput['resumed'];
  /** The agent's tools on the run's host, built with the owner's settings (their token); `null` when they have none. */
  hostTools?: (settings: AgentSettings, conversationId: string) => AgentHostTools | null;
}

export type ConversationPlan =
  /** A new conversation in the job's sandbox, with its first user message (if any). */
  | { create: Omit<NewConversation, 'owner' | 'sandboxId'>; firstMessage: string | null }
  /**
   * A stored conversation taken up again (a follow-up, a resume); with `followUp`, a new message
   * the agent works on from the conversation's history (a thread's next command), stored first,
   * and the conversation handed to `runId`.
   */
  | { resume: AppConversationRecord; followUp?: { message: NewConversationEvent; runId: string | null } };

export interface AgentJobPlan {
  owner: Principal;
  /**
   * A fresh sandbox of `specId` (the runtime's first spec when `null`); with `reuse`, that sandbox
   * while it still runs. `boundToProcess`: the sandbox dies with this process (a run's, held under
   * a lease: a dead worker's attempt never runs on beside the next one).
   */
  sandbox: { specId: string | null; reuse?: string | null; boundToProcess?: boolean };
  /** The run attempt doing the work, stamped on the events it writes. */
  attempt?: number;
  /** Cloned into a fresh sandbox before the conversation opens; a reused one has it already. */
  repository: RepositoryTarget | null;
  conversation: ConversationPlan;
  /** `null` opens the conversation and stops there: nobody asked the agent to work yet. */
  agent: AgentTask | null;
  /** Whether the sandbox goes when the work ends (automation runs) or stays for the user. */
  removeSandbox: boolean;
  /** A repository that cannot be cloned fails the job before any conversation opens (a start task's ERROR). Default: the failure is the work's outcome, recorded in its conversation. */
  repositoryFailureEndsJob?: boolean;
  signal: AbortSignal;
}

/**
 * A job's progress, told to its caller as the job goes (one way: the job never reads an answer).
 * A caller that no longer wants the work aborts the plan's signal with a {@link StopReason}.
 */
export interface AgentJobProgress {
  /** A stage begins; `sandboxId` once there is one. Throwing ends the job failed with that error. */
  stage?(stage: AgentJobStage, sandboxId: string | null): Promise<void>;
  /** The conversation is stored and its sandbox set, before the agent starts. */
  conversationOpened?(conversation: AppConversationRecord): Promise<void>;
}

/** What every result holds: the conversation (once opened) and the sandbox (once started). */
interface AgentJobEnd {
  conversation: AppConversationRecord | null;
  sandboxId: string | null;
}

/**
 * How the work ended, as its conversation recorded it: exactly one of
 * - `completed`: the agent finished (or, with no agent task, the conversation opened);
 * - `failed`: the agent's outcome says so, or a stage failed (`error`: a sandbox that would not
 *   start, a repository that could not be cloned, the storage) — `outcome.reason` says why;
 * - `cancelled`: stopped from outside for good (`reason`: cancelled, its lease lost, paused,
 *   its conversation deleted);
 * - `released`: stopped because this process shuts down; the work can be taken up again.
 */
export type AgentJobResult = AgentJobEnd &
  (
    | { status: 'completed'; outcome: AgentOutcome }
    | { status: 'failed'; outcome: AgentOutcome; error: Error | null }
    | { status: 'cancelled'; reason: Exclude<StopReason, 'shutdown'> }
    | { status: 'released'; reason: 'shutdown' }
  );

/**
 * Runs one agent job to its end and says how it ended. Never throws for the work's own failures
 * (they are its result); only a conversation whose end cannot be written (the storage failing) is
 * thrown, after the sandbox went.
 */
export function runAgentJob(services: AgentJobServices, plan: AgentJobPlan, progress: AgentJobProgress = {}): Promise<AgentJobResult> {
  return new AgentJob(services, plan, progress).run();
}

class AgentJob {
  private sandboxId: string | null = null;
  /** Whether this job started the sandbox (and so must prepare its repository). */
  private freshSandbox = false;
  private sandboxRemoved = false;
  private conversation: AppConversationRecord | null = null;
  private writer: ConversationWriter | null = null;
  /** A follow-up's message, as stored: the last of the history the agent starts from. */
  private followUp: ConversationEvent | null = null;
  private settings: Promise<AgentSettings> | null = null;
  /** The owner's own image, when the fresh sandbox runs it: noted in the conversation once it opens. */
  private ownerImage: string | null = null;
  /** When the stages before the conversation began and ended: noted in it once it opens. */
  private readonly stageTimes: JobStagesNote['stages'] = [];

  constructor(
    private readonly services: AgentJobServices,
    private readonly plan: AgentJobPlan,
    private readonly progress: AgentJobProgress,
  ) {
    if ('resume' in plan.conversation) {
      this.conversation = plan.conversation.resume;
      this.writer = new ConversationWriter(services.context, plan.conversation.resume.id, plan.attempt ?? null);
    }
  }

  async run(): Promise<AgentJobResult> {
    let result: AgentJobResult;
    try {
      result = await this.work();
    } catch (error) {
      result = this.plan.signal.aborted ? this.stoppedResult() : this.failed(error instanceof Error ? error : new Error(String(error)));
    }
    result = await this.whenLost(result);
    // The sandbox goes first (when it is to), so a conversation that says how it ended never has a live one.
    if (this.plan.removeSandbox) await this.removeSandbox();
    await this.record(result);
    return result;
  }

  /** The stages, in order; a stop from outside is noticed between them (and by the agent within its steps). */
  private async work(): Promise<AgentJobResult> {
    const { signal } = this.plan;
    await this.progress.stage?.('sandbox', null);
    await this.timed('sandbox', () => this.openSandbox());
    const failure = signal.aborted ? null : await this.prepareRepository();
    if (signal.aborted) return this.stoppedResult();
    await this.progress.stage?.('conversation', this.sandboxId);
    const { conversation, writer } = await this.openConversation();
    // A run's only: an API conversation keeps the OpenHands agent-server's events.
    if (this.plan.attempt !== undefined && this.stageTimes.length > 0) await this.noteStages(writer);
    if (this.ownerImage) await this.noteOwnerImage(writer, this.ownerImage);
    await this.progress.conversationOpened?.(conversation);
    if (signal.aborted) return this.stoppedResult();
    if (failure) return this.outcomeResult(failure);
    const task = this.plan.agent;
    if (!task) return this.outcomeResult({ status: 'COMPLETED', reason: null });
    if (task.resumed) await this.noteResumed(writer, task.resumed.attempt);
    await this.progress.stage?.('agent', this.sandboxId);
    const outcome = await this.runAgent(task, conversation.id, writer);
    return signal.aborted ? this.stoppedResult() : this.outcomeResult(outcome);
  }

  /** The result of the stop from outside (the plan's signal is aborted). */
  private stoppedResult(): AgentJobResult {
    const reason = stopReasonOf(this.plan.signal) ?? 'cancelled';
    return reason === 'shutdown' ? { ...this.ended(), status: 'released', reason } : { ...this.ended(), status: 'cancelled', reason };
  }

  /** What the agent's outcome (or a clone's failure) makes of the job. */
  private outcomeResult(outcome: AgentOutcome): AgentJobResult {
    return outcome.status === 'COMPLETED' ? { ...this.ended(), status: 'completed', outcome } : { ...this.ended(), status: 'failed', outcome, error: null };
  }

  private failed(error: Error): AgentJobResult {
    const reason = this.writer ? this.writer.scrub(error.message) : error.message;
    return { ...this.ended(), status: 'failed', outcome: { status: 'FAILED', reason }, error };
  }

  /**
   * A failure in a sandbox the runtime now reports lost (its host went away mid-work) is that
   * loss, not the agent's: said so in the reason, with a {@link SandboxLostError} a run retries on.
   */
  private async whenLost(result: AgentJobResult): Promise<AgentJobResult> {
    if (result.status !== 'failed' || !this.sandboxId) return result;
    const loss = await sandboxLoss(this.services.runtime, this.sandboxId);
    if (loss === null) return result;
    const reason = `the sandbox was lost: ${loss}`;
    return { ...result, outcome: { ...result.outcome, reason }, error: new SandboxLostError(reason) };
  }

  private ended(): AgentJobEnd {
    return { conversation: this.conversation, sandboxId: this.sandboxId };
  }

  /**
   * What the conversation records of the end: the agent's outcome, or the stop with its reason
   * (paused or shut down: `paused`, to be taken up again; a deleted conversation records nothing).
   * A stop or a failed stage is recorded as best it can be: the stop itself is what matters.
   */
  private async record(result: AgentJobResult): Promise<void> {
    const writer = this.writer;
    if (!writer) return;
    const options = { sandboxRemoved: this.sandboxRemoved };
    if (result.status === 'completed') {
      // Opened only (no agent task): nothing ended yet.
      if (this.plan.agent) await writer.close(result.outcome, options);
    } else if (result.status === 'failed') {
      const closing = writer.close(result.outcome, options);
      await (result.error ? closing.catch(() => {}) : closing);
    } else if (result.reason !== 'deleted') {
      const outcome: AgentOutcome = { status: 'CANCELLED', reason: STOP_DESCRIPTIONS[result.reason] };
      const resumable = result.reason === 'paused' || result.reason === 'shutdown';
      await writer.close(outcome, { ...options, ...(resumable ? { executionStatus: 'paused' as const } : {}) }).catch(() => {});
    }
  }

  private async openSandbox(): Promise<void> {
    const { runtime, context } = this.services;
    const reuse = this.plan.sandbox.reuse;
    if (reuse && (await runtime.inspect(reuse).catch(() => null))?.status === 'RUNNING') {
      this.sandboxId = reuse;
      return;
    }
    const spec = this.plan.sandbox.specId ?? (await runtime.listSpecs())[0]?.id;
    if (!spec) throw new Error('the sandbox runtime offers no spec');
    const bound = this.plan.sandbox.boundToProcess ? { boundToProcess: true } : {};
    // The repository's host is on the sandbox's egress allowlist (where the runtime has one): clone and push work.
    const egressAllow = this.plan.repository ? repositoryEgressHosts(await this.ownerSettings(), this.plan.repository) : [];
    const started = await startStoredSandbox(context, runtime, this.plan.owner, spec, { ...bound, egressAllow });
    this.sandboxId = started.id;
    this.freshSandbox = true;
    const ownerImage = started.image ? (await this.ownerSettings()).sandboxImage : null;
    if (ownerImage && started.image === ownerImage) this.ownerImage = ownerImage;
  }

  /**
   * Clones the repository into a fresh sandbox. A clone that fails is the work's outcome, recorded
   * in its conversation (not retried: it would meet the same token) — or, with
   * `repositoryFailureEndsJob`, the job's failure before any conversation opens.
   */
  private async prepareRepository(): Promise<AgentOutcome | null> {
    const target = this.plan.repository;
    if (!target || !this.freshSandbox) return null;
    await this.progress.stage?.('repository', this.sandboxId);
    try {
      const settings = await this.ownerSettings();
      await this.timed('repository', () => prepareOwnerRepository(this.services.runtime, this.sandbox(), settings, target, this.plan.signal));
      return null;
    } catch (error) {
      if (!(error instanceof RepositoryError) || this.plan.signal.aborted || this.plan.repositoryFailureEndsJob) throw error;
      return { status: 'FAILED', reason: error.message };
    }
  }

  private async openConversation(): Promise<{ conversation: AppConversationRecord; writer: ConversationWriter }> {
    const { context } = this.services;
    const plan = this.plan.conversation;
    if ('create' in plan) {
      const record = newConversationRecord(context, { ...plan.create, owner: this.plan.owner, sandboxId: this.sandbox() });
      await context.storage.conversations.insert(record);
      const writer = new ConversationWriter(context, record.id, this.plan.attempt ?? null);
      this.conversation = record;
      this.writer = writer;
      if (plan.firstMessage !== null) await writer.append(userMessageEvent(plan.firstMessage));
      return { conversation: record, writer };
    }
    let record = plan.resume;
    const followUp = plan.followUp;
    if (this.freshSandbox || followUp) {
      // The conversation's sandbox was gone: the fresh one takes its place; a follow-up's run holds it now.
      const moved = {
        ...(this.freshSandbox ? { sandbox_id: this.sandbox(), sandbox_status: 'RUNNING' as const } : {}),
        ...(followUp ? { run_id: followUp.runId, execution_status: 'running' as const } : {}),
        updated_at: context.clock.now().toISOString(),
      };
      record = (await context.storage.conversations.patch(record.id, moved)) ?? { ...record, ...moved };
    }
    const writer = this.writer ?? new ConversationWriter(context, record.id);
    this.conversation = record;
    this.writer = writer;
    if (followUp) this.followUp = await writer.append(followUp.message);
    return { conversation: record, writer };
  }

  private async runAgent(task: AgentTask, conversationId: string, writer: ConversationWriter): Promise<AgentOutcome> {
    const owned = await this.ownerSettings();
    const settings = task.llmModel ? { ...owned, llmModel: task.llmModel } : owned;
    const tools = this.services.toolsFor?.(this.plan.owner);
    const hostTools = task.hostTools?.(owned, conversationId) ?? null;
    // The work's spend counts against the org's, the owner's and the automation's budgets.
    const { spend } = this.services.context;
    const spender = { orgId: this.plan.owner.orgId, userId: this.plan.owner.userId, automationId: task.automationId ?? null };
    const meter = spend.meter(spender);
    const input: AgentRunInput = {
      runtime: this.services.runtime,
      sandboxId: this.sandbox(),
      conversationId,
      runId: task.runId,
      instructions: task.instructions,
      eventPayloadJson: task.eventPayloadJson,
      settings,
      timeoutMs: task.timeoutSeconds * 1000,
      signal: this.plan.signal,
      ...(tools ? { platformTools: tools } : {}),
      ...(hostTools ? { hostTools } : {}),
      ...(task.history && task.history.length > 0 ? { history: this.followUp ? [...task.history, this.followUp] : task.history } : {}),
      ...(task.pendingMessages ? { pendingMessages: task.pendingMessages } : {}),
      ...(task.confirm ? { confirm: task.confirm } : {}),
      ...(task.resumed ? { resumed: task.resumed } : {}),
      spendCheck: async (metrics) => {
        await meter.record(metrics);
        return spend.refusal(spender);
      },
    };
    if (!this.services.agent) throw new Error('no agent is configured');
    return runAgent(this.services.agent, input, writer, task.timeoutSeconds, meter);
  }

  /** Runs a stage before the conversation opens, keeping when it began and ended (whether it succeeded or not). */
  private async timed<T>(stage: JobStagesNote['stages'][number]['stage'], work: () => Promise<T>): Promise<T> {
    const started_at = nowIso(this.services.context);
    try {
      return await work();
    } finally {
      this.stageTimes.push({ stage, started_at, ended_at: nowIso(this.services.context) });
    }
  }

  /** Says in the conversation when its sandbox started and its repository was cloned (a run's timeline shows them). */
  private async noteStages(writer: ConversationWriter): Promise<void> {
    const note: JobStagesNote = { type: 'job_stages', stages: this.stageTimes };
    const words = this.stageTimes.map(
      ({ stage, started_at, ended_at }) =>
        `${stage === 'sandbox' ? 'the sandbox started' : 'the repository was cloned'} in ${Date.parse(ended_at) - Date.parse(started_at)} ms`,
    );
    await writer.append({ kind: 'agent_event', source: 'system', message: words.join('; '), data: note });
  }

  /** Says in the conversation which image the sandbox runs, when it is the owner's own (`sandbox_*_container_image`). */
  private async noteOwnerImage(writer: ConversationWriter, image: string): Promise<void> {
    await writer.append({
      kind: 'agent_event',
      source: 'system',
      message: `the sandbox runs the owner's image ${image}`,
      data: { type: 'sandbox_image', image },
    });
  }

  /**
   * A run's attempt takes the conversation up after an interrupted one: it runs again, and says
   * so (which attempt, and whether the sandbox is a new one, its files gone).
   */
  private async noteResumed(writer: ConversationWriter, attempt: number): Promise<void> {
    await writer.setStatus('running');
    await writer.append({
      kind: 'agent_event',
      source: 'system',
      message: `attempt ${attempt} takes up the work of an interrupted attempt${this.freshSandbox ? ', in a new sandbox' : ''}`,
      data: { type: 'run_resumed', attempt, fresh_sandbox: this.freshSandbox },
    });
  }

  private async removeSandbox(): Promise<void> {
    if (!this.sandboxId || this.sandboxRemoved) return;
    this.sandboxRemoved = true;
    await removeStoredSandbox(this.services.context, this.services.runtime, this.sandboxId);
  }

  private ownerSettings(): Promise<AgentSettings> {
    this.settings ??= this.services.settingsOf(this.plan.owner.userId);
    return this.settings;
  }

  private sandbox(): string {
    if (!this.sandboxId) throw new Error('the agent job has no sandbox yet');
    return this.sandboxId;
  }
}
