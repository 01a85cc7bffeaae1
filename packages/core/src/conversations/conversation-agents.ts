/**
 * The agents of API conversations at work in this process. Each is an agent job
 * (`runAgentJob`) — started from a start task, whose status follows the job's stages, or taken up
 * again with the whole history — plus what only a conversation has: follow-ups taken up between
 * steps, pause, and confirmation mode holding each action until the user answers. Requests may
 * come to any process sharing the storage: they are written on the conversation record
 * (`pause_requested`, `confirmation_response`) and announced (`conversation.control`), and the
 * process running the agent acts on them — this one included, through the same path.
 * @module
 */
import { runAgentJob, type AgentJobPlan, type AgentJobProgress, type AgentJobResult, type AgentJobServices } from '../agents/agent-job.js';
import { stopWork } from '../agents/stop-reason.js';
import { ConversationWriter } from '../agents/conversation-writer.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import { parseInput } from '../kernel/validation.js';
import type { ConfirmationDecision, PendingAction } from '../ports/agent-runner.js';
import type { ConversationPatch } from '../ports/storage.js';
import {
  messageText,
  startConversationInputSchema,
  type AppConversationRecord,
  type ConversationEvent,
  type StartTaskRecord,
} from '../schemas/app-conversation.js';
import type { Principal } from '../schemas/principal.js';
import { nextEventSeq, readEventsFrom } from '../storage/conversation-log.js';

interface Active {
  controller: AbortController;
  /** The action held for confirmation, and how to answer it. */
  pending: { action: PendingAction; answer: (decision: ConfirmationDecision) => void } | null;
}

/** The agent's task in a conversation: a first message, or the stored history taken up again. */
interface ConversationTask {
  instructions: string;
  history: readonly ConversationEvent[];
  llmModel: string | null;
}

type ConversationJobPlan = Omit<AgentJobPlan, 'owner' | 'agent' | 'removeSandbox' | 'signal'> & { agent: ConversationTask | null };

/** The first user message of a history: the task, for runners that take no history. */
function messageOf(history: readonly ConversationEvent[]): string {
  return history.find((event) => event.source === 'user' && event.message)?.message ?? '';
}

export class ConversationAgents {
  private readonly active = new Map<string, Active>();
  private readonly background = new Set<Promise<void>>();

  constructor(
    private readonly context: ServiceContext,
    private readonly jobs: AgentJobServices,
    private readonly options: { timeoutSeconds: number },
    private readonly stopping: AbortSignal,
  ) {}

  isRunningHere(conversationId: string): boolean {
    return this.active.has(conversationId);
  }

  /** Resolves when every job started so far has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.background]);
  }

  /**
   * Works a start task in the background: its status follows the job's stages (WAITING_FOR_SANDBOX,
   * PREPARING_REPOSITORY, STARTING_CONVERSATION) to READY once the conversation exists, or ERROR
   * with the reason; then the agent works on the first message, and the sandbox stays for the user.
   */
  start(principal: Principal, task: StartTaskRecord): void {
    const request = parseInput(startConversationInputSchema, task.request);
    let current = task;
    const update = async (changes: Partial<StartTaskRecord>) => {
      current = { ...current, ...changes, updated_at: nowIso(this.context) };
      await this.context.storage.startTasks.update(current);
    };
    const message = messageText(request.initial_message);
    // OpenHands' shape can hold the message without running it (`run: false`).
    const runsAgent = Boolean(message && this.jobs.agent) && (typeof request.initial_message === 'string' || request.initial_message?.run !== false);
    const plan: ConversationJobPlan = {
      sandbox: { specId: request.sandbox_spec_id ?? null },
      repository: request.selected_repository
        ? { repository: request.selected_repository, provider: request.git_provider ?? null, branch: request.selected_branch ?? null }
        : null,
      conversation: {
        create: {
          trigger: 'api',
          title: request.title ?? (message ? message.slice(0, 80) : null),
          selectedRepository: request.selected_repository ?? null,
          selectedBranch: request.selected_branch ?? null,
          gitProvider: request.git_provider ?? null,
          llmModel: request.llm_model ?? null,
          running: runsAgent,
        },
        firstMessage: message,
      },
      agent: runsAgent ? { instructions: message as string, history: [], llmModel: request.llm_model ?? null } : null,
    };
    const progress: AgentJobProgress = {
      stage: async (stage, sandboxId) => {
        if (stage === 'sandbox') await update({ status: 'WAITING_FOR_SANDBOX' });
        else if (stage === 'repository') await update({ sandbox_id: sandboxId, status: 'PREPARING_REPOSITORY' });
        else if (stage === 'conversation') await update({ sandbox_id: sandboxId, status: 'STARTING_CONVERSATION' });
      },
      conversationOpened: async (conversation) => {
        await update({ status: 'READY', app_conversation_id: conversation.id });
      },
    };
    const failed = async (detail: string) => {
      await update({ status: 'ERROR', detail }).catch(() => {});
    };
    this.inBackground(
      // A start task with a repository it cannot clone ends ERROR, before any conversation.
      this.runJob(principal, { ...plan, repositoryFailureEndsJob: true }, progress).then(
        (result) => (result.status === 'failed' && result.error ? failed(result.outcome.reason ?? result.error.message) : undefined),
        (error: unknown) => failed(error instanceof Error ? error.message : String(error)),
      ),
    );
  }

  /**
   * Takes a conversation up again with its stored history, in the background. Its sandbox is used
   * while it runs; when it is gone, a fresh one of the same spec takes its place, the repository
   * cloned again. A failure is recorded in the conversation (by the job), which can be run again.
   */
  resume(principal: Principal, record: AppConversationRecord): void {
    const work = async () => {
      const stored = record.sandbox_id ? await this.context.storage.sandboxes.get(record.sandbox_id).catch(() => null) : null;
      const history = await readEventsFrom(this.context.storage, record.id);
      await this.runJob(principal, {
        sandbox: { specId: stored?.sandbox_spec_id ?? null, reuse: record.sandbox_id },
        repository: record.selected_repository
          ? { repository: record.selected_repository, provider: record.git_provider, branch: record.selected_branch }
          : null,
        conversation: { resume: record },
        agent: { instructions: messageOf(history), history, llmModel: record.llm_model },
      });
    };
    this.inBackground(
      work().catch(async (error: unknown) => {
        // The job records its own failures; this is one from before it began (the history could not be read).
        if (this.isRunningHere(record.id)) return;
        const reason = error instanceof Error ? error.message : String(error);
        await new ConversationWriter(this.context, record.id).close({ status: 'FAILED', reason }, { sandboxRemoved: false }).catch(() => {});
      }),
    );
  }

  /** Stops the conversation's agent if it runs here, its conversation being deleted: nothing more is recorded. */
  stopDeleted(conversationId: string): void {
    const entry = this.active.get(conversationId);
    if (!entry) return;
    stopWork(entry.controller, 'deleted');
    entry.pending?.answer({ accept: false, reason: 'the conversation was deleted' });
  }

  /**
   * A control request was written on the conversation (here or in another process): if its agent
   * runs here, act on it.
   */
  async onControl(conversationId: string): Promise<void> {
    const entry = this.active.get(conversationId);
    if (!entry) return;
    const record = await this.context.storage.conversations.get(conversationId).catch(() => undefined);
    if (record === undefined) return;
    if (record === null) {
      // Deleted through another process: stop here too.
      this.stopDeleted(conversationId);
      return;
    }
    if (record.pause_requested) {
      await this.clearControl(record, { pause_requested: null });
      await new ConversationWriter(this.context, conversationId).append({ kind: 'PauseEvent', source: 'user', message: 'paused', data: {} });
      stopWork(entry.controller, 'paused');
      entry.pending?.answer({ accept: false, reason: 'the conversation was paused' });
      return;
    }
    const answer = record.confirmation_response;
    if (answer && entry.pending && answer.action_id === entry.pending.action.actionEventId) {
      await this.clearControl(record, { confirmation_response: null });
      entry.pending.answer(answer.accept ? { accept: true } : { accept: false, reason: answer.reason || 'rejected by the user' });
    }
  }

  /**
   * Runs the job until it ends, is paused, deleted, or the platform stops (the job records how: a
   * pause or a shutdown leaves the conversation `paused`, to be taken up again with `run`). While
   * its agent works, the conversation is registered here, so controls reach it; the sandbox stays
   * afterwards.
   */
  private async runJob(principal: Principal, plan: ConversationJobPlan, progress: AgentJobProgress = {}): Promise<AgentJobResult> {
    const controller = new AbortController();
    const onStopping = () => stopWork(controller, 'shutdown');
    if (this.stopping.aborted) onStopping();
    this.stopping.addEventListener('abort', onStopping, { once: true });
    const entry: Active = { controller, pending: null };
    // Set once the conversation is stored, before the agent (and so these closures) can run.
    let conversationId = '';
    let nextSeq = 0;
    const task = plan.agent;
    try {
      return await runAgentJob(
        this.jobs,
        {
          ...plan,
          owner: principal,
          removeSandbox: false,
          signal: controller.signal,
          agent: task && {
            runId: null,
            instructions: task.instructions,
            eventPayloadJson: null,
            llmModel: task.llmModel,
            timeoutSeconds: this.options.timeoutSeconds,
            history: task.history,
            pendingMessages: async () => {
              const fresh = await readEventsFrom(this.context.storage, conversationId, nextSeq);
              if (fresh.length > 0) nextSeq = (fresh.at(-1) as ConversationEvent).seq + 1;
              return fresh
                .filter((event) => event.source === 'user' && (event.kind === 'MessageEvent' || event.kind === 'message') && event.message)
                .map((event) => ({ id: event.id, text: event.message as string }));
            },
            confirm: (action) => this.holdForConfirmation(conversationId, entry, action),
          },
        },
        {
          ...progress,
          conversationOpened: async (conversation) => {
            await progress.conversationOpened?.(conversation);
            conversationId = conversation.id;
            if (!task) return;
            // Follow-ups are the user messages stored after what the agent starts from.
            nextSeq = task.history.length > 0 ? (task.history.at(-1) as ConversationEvent).seq + 1 : await nextEventSeq(this.context.storage, conversation.id);
            this.active.set(conversation.id, entry);
          },
        },
      );
    } finally {
      this.stopping.removeEventListener('abort', onStopping);
      if (conversationId) this.active.delete(conversationId);
    }
  }

  /** Sets the conversation waiting for the user's answer and waits for it (or for a stop). */
  private async holdForConfirmation(conversationId: string, entry: Active, action: PendingAction): Promise<ConfirmationDecision> {
    const decided = new Promise<ConfirmationDecision>((resolve) => {
      entry.pending = { action, answer: resolve };
      entry.controller.signal.addEventListener('abort', () => resolve({ accept: false, reason: 'the agent was stopped' }), { once: true });
    });
    const writer = new ConversationWriter(this.context, conversationId);
    await writer.setStatus('waiting_for_confirmation');
    // An answer written before we started waiting is taken up now.
    await this.onControl(conversationId);
    const decision = await decided;
    entry.pending = null;
    if (!entry.controller.signal.aborted) await writer.setStatus('running');
    return decision;
  }

  /**
   * Clears the request acted on, and nothing else. Unguarded: the agent's own writes (status,
   * metrics) may land meanwhile and must not stop it, and a request written again meanwhile asks
   * for what was just done (a pause; an answer naming the action held, which is answered now).
   */
  private async clearControl(record: AppConversationRecord, changes: Pick<ConversationPatch, 'pause_requested' | 'confirmation_response'>): Promise<void> {
    await this.context.storage.conversations.patch(record.id, changes);
  }

  private inBackground(work: Promise<void>): void {
    const tracked = work.finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }
}
