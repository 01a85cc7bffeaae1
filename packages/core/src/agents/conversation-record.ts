/**
 * The one place new conversation records and their events are built and written, so an
 * automation run's conversation and an API-started one hold the same fields, and every event
 * appended tells live streams everywhere that it is there.
 * @module
 */
import { nowIso, type ServiceContext } from '../kernel/context.js';
import type { AppConversationRecord, ConversationEvent } from '../schemas/app-conversation.js';

export type NewConversationEvent = Pick<ConversationEvent, 'kind' | 'source' | 'message' | 'data'> & { id?: string; attempt?: number };

/** A user's message as OpenHands stores it. */
export function userMessageEvent(text: string): NewConversationEvent {
  return {
    kind: 'MessageEvent',
    source: 'user',
    message: text,
    data: { llm_message: { role: 'user', content: [{ type: 'text', text }] }, activated_microagents: [], extended_content: [] },
  };
}

/** What distinguishes one new conversation from another. */
export interface NewConversation {
  owner: { userId: string; orgId: string };
  sandboxId: string;
  trigger: AppConversationRecord['trigger'];
  /** The automation run it belongs to. */
  runId?: string | null;
  title: string | null;
  selectedRepository?: string | null;
  selectedBranch?: string | null;
  gitProvider?: string | null;
  llmModel: string | null;
  /** Whether the agent starts on it now (`running`) or it waits for a message (`idle`). */
  running: boolean;
}

/** A conversation in a RUNNING sandbox, created now. */
export function newConversationRecord(context: ServiceContext, conversation: NewConversation): AppConversationRecord {
  const now = context.clock.now().toISOString();
  return {
    id: context.ids.newId('conv'),
    created_by_user_id: conversation.owner.userId,
    org_id: conversation.owner.orgId,
    run_id: conversation.runId ?? null,
    sandbox_id: conversation.sandboxId,
    selected_repository: conversation.selectedRepository ?? null,
    selected_branch: conversation.selectedBranch ?? null,
    git_provider: conversation.gitProvider ?? null,
    title: conversation.title,
    trigger: conversation.trigger,
    pr_number: [],
    llm_model: conversation.llmModel,
    sandbox_status: 'RUNNING',
    execution_status: conversation.running ? 'running' : 'idle',
    metrics: null,
    version: 0,
    created_at: now,
    updated_at: now,
  };
}

/** Appends one event and tells live streams everywhere (the change feed) that it is there. */
export async function appendConversationEvent(context: ServiceContext, conversationId: string, event: NewConversationEvent): Promise<ConversationEvent> {
  const { id, ...body } = event;
  const [stored] = await context.storage.conversations.appendEvents(conversationId, [
    { id: id ?? context.ids.newId('evt'), conversation_id: conversationId, created_at: nowIso(context), ...body },
  ]);
  await context.announce({ type: 'conversation.events', conversationId, seq: (stored as ConversationEvent).seq });
  return stored as ConversationEvent;
}
