/**
 * The agent job: one piece of an agent's work from start to end, the same for an automation run
 * and an API conversation — open the sandbox, prepare the repository, open the conversation, run
 * the agent, close. It reports each stage to its caller through hooks, and the caller keeps only
 * what is its own: a run's lease and status, a start task's progress, a conversation's controls.
 *
 * A stop from outside is the plan's `signal`: the job notices it between stages (and the agent
 * within its steps), and ends `stopped`, letting its caller say how the conversation records it.
 * @module
 */
import type { ServiceContext } from '../kernel/context.js';
import type { AgentOutcome, AgentPlatformTools, AgentRunInput, AgentRunner, AgentSettings } from '../ports/agent-runner.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { AppConversationRecord } from '../schemas/app-conversation.js';
import type { Principal } from '../schemas/principal.js';
import { removeStoredSandbox, startStoredSandbox } from '../sandboxes/stored-sandbox.js';
import { newConversationRecord, userMessageEvent, type NewConversation } from './conversation-record.js';
import { ConversationWriter, type ExecutionStatus } from './conversation-writer.js';
import { prepareOwnerRepository, RepositoryError, type RepositoryTarget } from './git-checkout.js';
import { runAgent } from './run-agent.js';
import { createAgentGitHubTools, type GitHubToolScope } from '../github/github-tools.js';

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
  /** The GitHub repositories (and thread) the agent's GitHub tools reach, with the owner's token. */
  github?: GitHubToolScope;
}

export type ConversationPlan =
  /** A new conversation in the job's sandbox, with its first user message (if any). */
  | { create: Omit<NewConversation, 'owner' | 'sandboxId'>; firstMessage: string | null }
  /** A stored conversation taken up again (a follow-up, a resume). */
  | { resume: AppConversationRecord };

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
  signal: AbortSignal;
}

/** How the work ended, before the conversation records it. */
export interface AgentJobEnd {
  outcome: AgentOutcome;
  /** Stopped from outside: the signal aborted (`reason` is its reason), or a hook said stop. */
  stopped: boolean;
  reason: unknown;
}

export interface AgentJobHooks {
  /** A stage begins; `sandboxId` once there is one. Throwing ends the job with that error. */
  stage?(stage: AgentJobStage, sandboxId: string | null): Promise<void>;
  /**
   * The repository could not be cloned. Without this hook the failure is the work's outcome,
   * recorded in its conversation; a hook that throws ends the job before any conversation opens.
   */
  repositoryFailed?(error: RepositoryError): Promise<void>;
  /** The conversation is stored and its sandbox set; `false` stops the job (the work is no longer wanted). */
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook returns `false` to stop the job or nothing at all; `void` lets a hook that returns nothing be an ordinary async function
  conversationOpened?(conversation: AppConversationRecord): Promise<boolean | void>;
  /** What the conversation records of the end: the outcome and status to close with, or `null` for nothing. Default: the outcome as it is. */
  closing?(end: AgentJobEnd): Promise<{ outcome: AgentOutcome; executionStatus?: ExecutionStatus } | null>;
}

export interface AgentJobResult {
  /** The outcome as recorded (after `closing`). */
  outcome: AgentOutcome;
  stopped: boolean;
  sandboxId: string | null;
  conversation: AppConversationRecord | null;
  /** Writes to the conversation, for a caller that records more (a pause, a state change). */
  writer: ConversationWriter | null;
}

/** Runs one agent job to its end. Throws what its stages throw (a sandbox that would not start, say), after closing what it opened. */
export function runAgentJob(services: AgentJobServices, plan: AgentJobPlan, hooks: AgentJobHooks = {}): Promise<AgentJobResult> {
  return new AgentJob(services, plan, hooks).run();
}

const stoppedOutcome: AgentOutcome = { status: 'CANCELLED', reason: 'stopped' };

class AgentJob {
  private sandboxId: string | null = null;
  /** Whether this job started the sandbox (and so must prepare its repository). */
  private freshSandbox = false;
  private sandboxRemoved = false;
  private conversation: AppConversationRecord | null = null;
  private writer: ConversationWriter | null = null;
  private settings: Promise<AgentSettings> | null = null;

  constructor(
    private readonly services: AgentJobServices,
    private readonly plan: AgentJobPlan,
    private readonly hooks: AgentJobHooks,
  ) {
    if ('resume' in plan.conversation) {
      this.conversation = plan.conversation.resume;
      this.writer = new ConversationWriter(services.context, plan.conversation.resume.id, plan.attempt ?? null);
    }
  }

  async run(): Promise<AgentJobResult> {
    const { signal } = this.plan;
    try {
      await this.hooks.stage?.('sandbox', null);
      await this.openSandbox();
      if (signal.aborted) return await this.end(stoppedOutcome, true);
      const failure = await this.prepareRepository();
      if (signal.aborted) return await this.end(stoppedOutcome, true);
      await this.hooks.stage?.('conversation', this.sandboxId);
      const { conversation, writer } = await this.openConversation();
      if ((await this.hooks.conversationOpened?.(conversation)) === false || signal.aborted) return await this.end(stoppedOutcome, true);
      if (failure) return await this.end(failure, false);
      if (!this.plan.agent) return this.result(null, false);
      if (this.plan.agent.resumed) await this.noteResumed(writer, this.plan.agent.resumed.attempt);
      await this.hooks.stage?.('agent', this.sandboxId);
      const outcome = await this.runAgent(this.plan.agent, conversation.id, writer);
      return await this.end(outcome, signal.aborted);
    } catch (error) {
      if (signal.aborted) return await this.end(stoppedOutcome, true);
      // The conversation, if open, says why; the caller decides what the error means (a retry, a start task's ERROR).
      const reason = error instanceof Error ? error.message : String(error);
      if (this.plan.removeSandbox) await this.removeSandbox();
      await this.writer?.close({ status: 'FAILED', reason: this.writer.scrub(reason) }, { sandboxRemoved: this.sandboxRemoved }).catch(() => {});
      throw error;
    } finally {
      if (this.plan.removeSandbox) await this.removeSandbox();
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
    this.sandboxId = (await startStoredSandbox(context, runtime, this.plan.owner, spec, bound)).id;
    this.freshSandbox = true;
  }

  /** Clones the repository into a fresh sandbox; a clone that fails is the work's outcome (not retried: it would meet the same token). */
  private async prepareRepository(): Promise<AgentOutcome | null> {
    const target = this.plan.repository;
    if (!target || !this.freshSandbox) return null;
    await this.hooks.stage?.('repository', this.sandboxId);
    try {
      await prepareOwnerRepository(this.services.runtime, this.sandbox(), await this.ownerSettings(), target, this.plan.signal);
      return null;
    } catch (error) {
      if (!(error instanceof RepositoryError) || this.plan.signal.aborted) throw error;
      await this.hooks.repositoryFailed?.(error);
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
    if (this.freshSandbox) {
      // The conversation's sandbox was gone: the fresh one takes its place.
      const latest = (await context.storage.conversations.get(record.id)) ?? record;
      record = { ...latest, sandbox_id: this.sandbox(), sandbox_status: 'RUNNING', updated_at: context.clock.now().toISOString() };
      await context.storage.conversations.update(record);
    }
    const writer = this.writer ?? new ConversationWriter(context, record.id);
    this.conversation = record;
    this.writer = writer;
    return { conversation: record, writer };
  }

  private async runAgent(task: AgentTask, conversationId: string, writer: ConversationWriter): Promise<AgentOutcome> {
    const owned = await this.ownerSettings();
    const settings = task.llmModel ? { ...owned, llmModel: task.llmModel } : owned;
    const tools = this.services.toolsFor?.(this.plan.owner);
    const github = owned.providerTokens.github;
    const githubTools = task.github && github?.token ? createAgentGitHubTools(task.github, github.token, github.host) : null;
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
      ...(githubTools ? { githubTools } : {}),
      ...(task.history && task.history.length > 0 ? { history: task.history } : {}),
      ...(task.pendingMessages ? { pendingMessages: task.pendingMessages } : {}),
      ...(task.confirm ? { confirm: task.confirm } : {}),
      ...(task.resumed ? { resumed: task.resumed } : {}),
    };
    if (!this.services.agent) throw new Error('no agent is configured');
    return runAgent(this.services.agent, input, writer, task.timeoutSeconds);
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

  /** Closes: the sandbox goes first (when it is to), so a conversation that says how it ended never has a live one. */
  private async end(outcome: AgentOutcome, stopped: boolean): Promise<AgentJobResult> {
    const decided = this.hooks.closing ? await this.hooks.closing({ outcome, stopped, reason: this.plan.signal.reason }) : { outcome };
    if (this.plan.removeSandbox) await this.removeSandbox();
    if (decided && this.writer) {
      const closing = this.writer.close(decided.outcome, {
        sandboxRemoved: this.sandboxRemoved,
        ...(decided.executionStatus ? { executionStatus: decided.executionStatus } : {}),
      });
      // A stopped job records its end as best it can: the stop itself is what matters.
      await (stopped ? closing.catch(() => {}) : closing);
    }
    return this.result(decided?.outcome ?? outcome, stopped);
  }

  private result(outcome: AgentOutcome | null, stopped: boolean): AgentJobResult {
    return {
      outcome: outcome ?? { status: 'COMPLETED', reason: null },
      stopped,
      sandboxId: this.sandboxId,
      conversation: this.conversation,
      writer: this.writer,
    };
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
