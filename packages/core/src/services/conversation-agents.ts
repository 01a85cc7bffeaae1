/**
 * The agents of API conversations at work in this process (DESIGN §13): started on a first
 * message or resumed with the whole history; follow-ups taken up between steps; paused;
 * confirmation mode holding each action until the user answers. Requests may come to any process
 * sharing the storage: they are written on the conversation record (`pause_requested`,
 * `confirmation_response`) and announced (`conversation.control`), and the process running the
 * agent acts on them — this one included, through the same path.
 * @module
 */
import type { AgentOutcome, ConfirmationDecision, PendingAction } from '../ports/agent-runner.js';
import type { AgentSession } from '../runs/agent-session.js';
import type { AppConversationRecord, ConversationEvent } from '../schemas/app-conversation.js';
import type { Principal } from '../schemas/principal.js';
import { nextEventSeq, readEventsFrom } from '../runs/conversation-log.js';
import { nowIso, type ServiceContext } from './context.js';
import type { SettingsService } from './settings-service.js';

/** Why an agent was stopped from outside. */
type StopReason = 'paused' | 'shutdown' | 'deleted';

interface Active {
  controller: AbortController;
  session: AgentSession;
  /** The action held for confirmation, and how to answer it. */
  pending: { action: PendingAction; answer: (decision: ConfirmationDecision) => void } | null;
}

export interface AgentRunRequest {
  /** The task when there is no history (a first message). */
  instructions: string;
  /** The stored events to take up again (a resume); empty for a first message. */
  history: readonly ConversationEvent[];
  llmModel: string | null;
}

export class ConversationAgents {
  private readonly active = new Map<string, Active>();

  constructor(
    private readonly context: ServiceContext,
    private readonly settings: SettingsService,
    private readonly options: { timeoutSeconds: number },
    private readonly stopping: AbortSignal,
  ) {}

  isRunningHere(conversationId: string): boolean {
    return this.active.has(conversationId);
  }

  /** Stops the conversation's agent if it runs here, its conversation being deleted: nothing more is recorded. */
  stopDeleted(conversationId: string): void {
    const entry = this.active.get(conversationId);
    if (!entry) return;
    entry.controller.abort('deleted' satisfies StopReason);
    entry.pending?.answer({ accept: false, reason: 'the conversation was deleted' });
  }

  /** Runs the agent on the conversation until it finishes, fails, is paused or the platform stops. */
  async run(principal: Principal, session: AgentSession, request: AgentRunRequest): Promise<void> {
    const conversationId = session.conversationId as string;
    const controller = new AbortController();
    const onStopping = () => controller.abort('shutdown' satisfies StopReason);
    if (this.stopping.aborted) onStopping();
    this.stopping.addEventListener('abort', onStopping, { once: true });
    const entry: Active = { controller, session, pending: null };
    this.active.set(conversationId, entry);
    let outcome: AgentOutcome;
    try {
      const settings = await this.settings.agentSettings(principal.userId);
      if (request.llmModel) settings.llmModel = request.llmModel;
      let nextSeq = request.history.length > 0 ? (request.history.at(-1) as ConversationEvent).seq + 1 : await nextEventSeq(this.context.storage, conversationId);
      outcome = await session.run(
        {
          runId: null,
          instructions: request.instructions,
          eventPayloadJson: null,
          settings,
          timeoutMs: this.options.timeoutSeconds * 1000,
          signal: controller.signal,
          ...(request.history.length > 0 ? { history: request.history } : {}),
          pendingMessages: async () => {
            const fresh = await readEventsFrom(this.context.storage, conversationId, nextSeq);
            if (fresh.length > 0) nextSeq = (fresh.at(-1) as ConversationEvent).seq + 1;
            return fresh
              .filter((event) => event.source === 'user' && (event.kind === 'MessageEvent' || event.kind === 'message') && event.message)
              .map((event) => ({ id: event.id, text: event.message as string }));
          },
          confirm: (action) => this.holdForConfirmation(conversationId, entry, action),
        },
        () => `timed out after ${this.options.timeoutSeconds} s`,
      );
    } finally {
      this.stopping.removeEventListener('abort', onStopping);
      this.active.delete(conversationId);
    }
    const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
    // Deleted: there is no conversation left to record the end in.
    if (reason === 'deleted') return;
    // Paused, or interrupted by a shutdown: the conversation can be taken up again with `run`.
    await session.close(outcome, { removeSandbox: false, ...(reason ? { executionStatus: 'paused' as const } : {}) });
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
      await entry.session.record({ kind: 'PauseEvent', source: 'user', message: 'paused', data: {} });
      entry.controller.abort('paused' satisfies StopReason);
      entry.pending?.answer({ accept: false, reason: 'the conversation was paused' });
      return;
    }
    const answer = record.confirmation_response;
    if (answer && entry.pending && answer.action_id === entry.pending.action.actionEventId) {
      await this.clearControl(record, { confirmation_response: null });
      entry.pending.answer(answer.accept ? { accept: true } : { accept: false, reason: answer.reason || 'rejected by the user' });
    }
  }

  /** Sets the conversation waiting for the user's answer and waits for it (or for a stop). */
  private async holdForConfirmation(conversationId: string, entry: Active, action: PendingAction): Promise<ConfirmationDecision> {
    const decided = new Promise<ConfirmationDecision>((resolve) => {
      entry.pending = { action, answer: resolve };
      entry.controller.signal.addEventListener('abort', () => resolve({ accept: false, reason: 'the agent was stopped' }), { once: true });
    });
    await this.setStatus(conversationId, entry, 'waiting_for_confirmation');
    // An answer written before we started waiting is taken up now.
    await this.onControl(conversationId);
    const decision = await decided;
    entry.pending = null;
    if (!entry.controller.signal.aborted) await this.setStatus(conversationId, entry, 'running');
    return decision;
  }

  private async setStatus(conversationId: string, entry: Active, status: 'running' | 'waiting_for_confirmation'): Promise<void> {
    const record = await this.context.storage.conversations.get(conversationId);
    if (record) await this.context.storage.conversations.update({ ...record, execution_status: status, updated_at: nowIso(this.context) });
    await entry.session.record({ kind: 'ConversationStateUpdateEvent', source: 'environment', message: null, data: { key: 'execution_status', value: status } });
  }

  private async clearControl(record: AppConversationRecord, changes: Partial<AppConversationRecord>): Promise<void> {
    const current = (await this.context.storage.conversations.get(record.id)) ?? record;
    await this.context.storage.conversations.update({ ...current, ...changes });
  }


}
