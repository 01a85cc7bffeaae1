/**
 * The one place new run and conversation records are built, so every path that creates one —
 * an event delivery, a manual dispatch, an automation run's conversation, an API-started
 * conversation — writes the same fields the same way.
 * @module
 */
import type { AppConversationRecord } from '../schemas/app-conversation.js';
import type { RunRecord } from '../schemas/run.js';
import type { ServiceContext } from '../services/context.js';

/** What distinguishes one new run from another. */
export interface NewRun {
  orgId: string;
  automationId: string;
  /** When it was created: the delivery's `received_at`, or now for a dispatch. */
  createdAt: string;
  /** An event run: the delivery that triggered it and its event key. */
  event?: { deliveryId: string; eventKey: string };
  /** A manual run: who dispatched it, and the payload (JSON text) they gave, if any. */
  manual?: { createdBy: string; payloadJson: string | null };
  /** The automation's concurrency key for this event (DESIGN §16), if it has one. */
  concurrencyKey?: string | null;
}

/** A PENDING run that has never been attempted. */
export function newRunRecord(context: ServiceContext, run: NewRun): RunRecord {
  return {
    id: context.ids.newId('run'),
    org_id: run.orgId,
    automation_id: run.automationId,
    delivery_id: run.event?.deliveryId ?? null,
    trigger: run.event ? 'event' : 'manual',
    event_key: run.event?.eventKey ?? null,
    status: 'PENDING',
    attempt: 0,
    conversation_id: null,
    sandbox_id: null,
    error_detail: null,
    created_by: run.manual?.createdBy ?? null,
    created_at: run.createdAt,
    started_at: null,
    completed_at: null,
    metrics: null,
    dispatch_payload_json: run.manual?.payloadJson ?? null,
    ...(run.concurrencyKey != null ? { concurrency_key: run.concurrencyKey } : {}),
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
    created_at: now,
    updated_at: now,
  };
}
