/**
 * Actions a run's agent holds for approval (its owner's confirmation mode): the conversation
 * waits (`waiting_for_confirmation`), `run.held` tells the subscribers (the thread is asked to
 * `/approve` or `/reject`), and the answer — written on the conversation by the console's answer
 * or a trusted person's command in the thread, in any process — reaches the agent through the
 * change feed (`conversation.control`). A stop answers the held action with a rejection.
 * @module
 */
import { ConversationWriter } from '../agents/conversation-writer.js';
import type { ServiceContext } from '../kernel/context.js';
import type { ConfirmationDecision, PendingAction } from '../ports/agent-runner.js';
import type { RunRecord } from '../schemas/run.js';

interface Waiting {
  actionId: string;
  answer(decision: ConfirmationDecision): void;
}

export class RunApprovals {
  /** By conversation: the action its run's agent holds here. */
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly context: ServiceContext) {}

  /**
   * The agent's `confirm` for one attempt of `run`: `conversationId()` names the run's
   * conversation once it is open; `signal` is the attempt's stop.
   */
  confirmFor(run: RunRecord, conversationId: () => string | null, signal: AbortSignal): (action: PendingAction) => Promise<ConfirmationDecision> {
    return async (action) => {
      const id = conversationId();
      if (!id || signal.aborted) return { accept: false, reason: 'the run was stopped' };
      const decided = new Promise<ConfirmationDecision>((resolve) => {
        this.waiting.set(id, { actionId: action.actionEventId, answer: resolve });
        signal.addEventListener('abort', () => resolve({ accept: false, reason: 'the run was stopped' }), { once: true });
      });
      const writer = new ConversationWriter(this.context, id);
      try {
        await writer.setStatus('waiting_for_confirmation');
        await this.context.runEvents.emit({ type: 'run.held', run, action });
        // An answer written before this process started waiting is taken up now.
        await this.onControl(id);
        const decision = await decided;
        if (!signal.aborted) await writer.setStatus('running');
        return decision;
      } finally {
        this.waiting.delete(id);
      }
    };
  }

  /** A control request was written on a conversation (here or elsewhere): answers the action held here, if it names it. */
  async onControl(conversationId: string): Promise<void> {
    const entry = this.waiting.get(conversationId);
    if (!entry) return;
    const record = await this.context.storage.conversations.get(conversationId).catch(() => null);
    const answer = record?.confirmation_response;
    if (!answer || answer.action_id !== entry.actionId) return;
    await this.context.storage.conversations.patch(conversationId, { confirmation_response: null });
    entry.answer(answer.accept ? { accept: true } : { accept: false, reason: answer.reason || 'rejected' });
  }
}
