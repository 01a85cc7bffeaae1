/**
 * What an agent at work writes to its conversation: each event as it happens (scrubbed of the
 * owner's secret values), the token usage and cost as they grow, and how the work ended. The
 * agent job holds one per conversation; nothing else appends an agent's events.
 *
 * Each write to the record is a patch of the members it owns, never the record read and written
 * back: a user's pause or answer, written meanwhile by any process, stays.
 * @module
 */
import { nowIso, type ServiceContext } from '../kernel/context.js';
import type { AgentOutcome } from '../ports/agent-runner.js';
import type { ConversationEvent, EXECUTION_STATUSES } from '../schemas/app-conversation.js';
import type { MetricsSnapshot } from '../schemas/metrics.js';
import { appendConversationEvent, type NewConversationEvent } from './conversation-record.js';
import { scrubSecrets } from './secret-values.js';

export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export class ConversationWriter {
  /** Secret values of the running agent's settings, scrubbed from every event written. */
  private secrets: readonly string[] = [];
  private latest: MetricsSnapshot | null = null;

  constructor(
    private readonly context: ServiceContext,
    readonly conversationId: string,
    /** The run attempt writing, stamped on every event (so a resumed run shows which attempt did what). */
    private readonly attempt: number | null = null,
  ) {}

  /** Scrubs these values from everything written from now on. */
  hide(secrets: readonly string[]): void {
    this.secrets = secrets;
  }

  /** The token usage and cost last written, if any. */
  get metrics(): MetricsSnapshot | null {
    return this.latest;
  }

  scrub(text: string): string {
    return scrubSecrets(text, this.secrets);
  }

  append(event: NewConversationEvent): Promise<ConversationEvent> {
    const stamped = this.attempt === null ? event : { ...event, attempt: this.attempt };
    return appendConversationEvent(this.context, this.conversationId, scrubSecrets(stamped, this.secrets));
  }

  /** Keeps the latest token usage and cost on the conversation as the agent goes. */
  async recordMetrics(metrics: MetricsSnapshot): Promise<void> {
    this.latest = metrics;
    // A conversation deleted meanwhile is no error: there is nothing left to keep them on.
    await this.context.storage.conversations.patch(this.conversationId, { metrics, updated_at: nowIso(this.context) });
  }

  /** Sets the execution status, on the record and as a state-update event. */
  async setStatus(status: ExecutionStatus): Promise<void> {
    await this.context.storage.conversations.patch(this.conversationId, { execution_status: status, updated_at: nowIso(this.context) });
    await this.appendStateUpdate(status);
  }

  /**
   * Records how the work ended: the execution status (a state update, then a `status` event with
   * the reason, which stays the conversation's last) and, when the sandbox was removed, MISSING.
   */
  async close(outcome: AgentOutcome, options: { sandboxRemoved: boolean; executionStatus?: ExecutionStatus }): Promise<void> {
    const executionStatus = options.executionStatus ?? (outcome.status === 'COMPLETED' ? 'finished' : outcome.status === 'CANCELLED' ? 'stopped' : 'error');
    await this.appendStateUpdate(executionStatus);
    await this.append({ kind: 'status', source: 'system', message: null, data: { status: outcome.status, reason: outcome.reason } });
    await this.context.storage.conversations.patch(this.conversationId, {
      ...(options.sandboxRemoved ? { sandbox_status: 'MISSING' as const } : {}),
      execution_status: executionStatus,
      updated_at: nowIso(this.context),
    });
  }

  private appendStateUpdate(status: ExecutionStatus): Promise<ConversationEvent> {
    return this.append({ kind: 'ConversationStateUpdateEvent', source: 'environment', message: null, data: { key: 'execution_status', value: status } });
  }
}
