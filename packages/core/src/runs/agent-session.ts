/**
 * What automation runs and API-started conversations share: a stored sandbox started on the
 * runtime, and an agent whose events are written to a conversation as they happen.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { AgentOutcome, AgentRunInput, AgentRunner } from '../ports/agent-runner.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { AppConversationRecord, ConversationEvent, EXECUTION_STATUSES } from '../schemas/app-conversation.js';

type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
import type { SandboxRecord } from '../schemas/sandbox.js';
import { nowIso, type ServiceContext } from '../services/context.js';
import type { MetricsSnapshot } from '../schemas/metrics.js';
import { scrubSecrets, secretValuesOf } from '../agents/secret-values.js';

export type NewConversationEvent = Pick<ConversationEvent, 'kind' | 'source' | 'message' | 'data'> & { id?: string };

/** A user's message as OpenHands stores it. */
export function userMessageEvent(text: string): NewConversationEvent {
  return {
    kind: 'MessageEvent',
    source: 'user',
    message: text,
    data: { llm_message: { role: 'user', content: [{ type: 'text', text }] }, activated_microagents: [], extended_content: [] },
  };
}

/** Thrown when the runtime would not start a sandbox; the record is left with status ERROR. */
export class SandboxStartError extends Error {}

/** Stores a sandbox record (STARTING), starts it on the runtime and records what it became. */
export async function startStoredSandbox(
  context: ServiceContext,
  runtime: SandboxRuntime,
  owner: { userId: string; orgId: string },
  specId: string,
): Promise<SandboxRecord> {
  const now = nowIso(context);
  const sessionApiKey = randomBytes(32).toString('base64url');
  // The owner's resource factor scales the runtime's default limits (DESIGN §8).
  const resourceFactor = (await context.storage.settings.get(owner.userId))?.values.remote_runtime_resource_factor ?? 1;
  const record: SandboxRecord = {
    id: context.ids.newId('sbx'),
    created_by_user_id: owner.userId,
    org_id: owner.orgId,
    sandbox_spec_id: specId,
    status: 'STARTING',
    exposed_urls: [],
    created_at: now,
    updated_at: now,
    runtime: runtime.name,
    session_api_key: context.secrets.seal(sessionApiKey),
  };
  await context.storage.sandboxes.insert(record);
  try {
    const started = await runtime.start({ sandboxId: record.id, specId, sessionApiKey, resourceFactor });
    const running: SandboxRecord = { ...record, status: started.status, exposed_urls: started.exposedUrls, updated_at: nowIso(context) };
    await context.storage.sandboxes.update(running);
    return running;
  } catch (error) {
    await context.storage.sandboxes.update({ ...record, status: 'ERROR', updated_at: nowIso(context) }).catch(() => {});
    throw new SandboxStartError(`the sandbox did not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Deletes a sandbox from the runtime (best effort) and marks its record MISSING. */
export async function removeStoredSandbox(context: ServiceContext, runtime: SandboxRuntime, sandboxId: string): Promise<void> {
  await runtime.delete(sandboxId).catch(() => {});
  const record = await context.storage.sandboxes.get(sandboxId).catch(() => null);
  if (record) await context.storage.sandboxes.update({ ...record, status: 'MISSING', updated_at: nowIso(context) }).catch(() => {});
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

/** What the session's agent is given besides where it runs. */
export type SessionAgentInput = Omit<AgentRunInput, 'runtime' | 'sandboxId' | 'conversationId' | 'platformTools'>;

/**
 * One agent at work, for an automation run or an API-started conversation: it opens a sandbox
 * and a conversation, runs the agent writing each thing it does to the conversation as it
 * happens, and closes — a `status` event, the conversation's execution status, and (for runs)
 * the sandbox removed. Opening and closing are the only places these records are written.
 */
export class AgentSession {
  private sandbox: string | null = null;
  private conversation: string | null = null;
  private removed = false;
  /** Secret values of the running agent's settings, scrubbed from every event it reports. */
  private secrets: readonly string[] = [];
  private metrics: MetricsSnapshot | null = null;

  constructor(
    private readonly context: ServiceContext,
    private readonly runtime: SandboxRuntime,
    private readonly agent: AgentRunner,
    private readonly owner: { userId: string; orgId: string },
  ) {}

  get sandboxId(): string | null {
    return this.sandbox;
  }

  get conversationId(): string | null {
    return this.conversation;
  }

  /** Starts a sandbox of `specId` (the runtime's first spec when none); {@link SandboxStartError} when it would not start. */
  async openSandbox(specId: string | null): Promise<string> {
    const spec = specId ?? (await this.runtime.listSpecs())[0]?.id;
    if (!spec) throw new Error('the sandbox runtime offers no spec');
    this.sandbox = (await startStoredSandbox(this.context, this.runtime, this.owner, spec)).id;
    return this.sandbox;
  }

  /** Takes up a stored conversation and its sandbox again (a follow-up, a resume). */
  attach(record: AppConversationRecord): void {
    if (!record.sandbox_id) throw new Error('AgentSession: the conversation has no sandbox');
    this.sandbox = record.sandbox_id;
    this.conversation = record.id;
  }

  /** Appends an event to the open conversation (scrubbed of the running agent's secrets). */
  record(event: NewConversationEvent): Promise<ConversationEvent> {
    return this.append(event);
  }

  /** Stores the conversation (built by `newConversationRecord`) and its first message, if any. */
  async openConversation(record: AppConversationRecord, firstMessage: string | null): Promise<AppConversationRecord> {
    await this.context.storage.conversations.insert(record);
    this.conversation = record.id;
    if (firstMessage !== null) await this.append(userMessageEvent(firstMessage));
    return record;
  }

  /** Runs the agent to its outcome; an agent that throws ends FAILED with its message. */
  async run(input: SessionAgentInput, describeTimeout: () => string): Promise<AgentOutcome> {
    const { sandbox, conversation } = this.opened();
    this.secrets = secretValuesOf(input.settings);
    const platformTools = this.context.agentTools?.(this.owner);
    try {
      let outcome: AgentOutcome = { status: 'FAILED', reason: 'the agent reported no outcome' };
      const agentInput = { ...input, runtime: this.runtime, sandboxId: sandbox, conversationId: conversation, ...(platformTools ? { platformTools } : {}) };
      for await (const event of this.agent.run(agentInput)) {
        if (event.type === 'record') await this.append({ ...(event.id ? { id: event.id } : {}), ...event.event } as NewConversationEvent);
        else if (event.type === 'metrics') await this.recordMetrics(event.metrics);
        else outcome = event.outcome.status === 'TIMED_OUT' ? { ...event.outcome, status: 'TIMED_OUT', reason: describeTimeout() } : event.outcome;
      }
      if (outcome.metrics) await this.recordMetrics(outcome.metrics);
      return { ...outcome, reason: outcome.reason === null ? null : scrubSecrets(outcome.reason, this.secrets), metrics: outcome.metrics ?? this.metrics };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { status: 'FAILED', reason: scrubSecrets(reason, this.secrets), metrics: this.metrics };
    }
  }

  /** The latest token usage and cost, kept on the conversation as the agent goes. */
  private async recordMetrics(metrics: MetricsSnapshot): Promise<void> {
    this.metrics = metrics;
    const current = await this.context.storage.conversations.get(this.opened().conversation);
    if (current) await this.context.storage.conversations.update({ ...current, metrics, updated_at: nowIso(this.context) });
  }

  /**
   * Records how the agent ended (a `status` event and the execution status) and, with
   * `removeSandbox`, removes the sandbox first so the conversation says MISSING.
   */
  async close(outcome: AgentOutcome, options: { removeSandbox: boolean; executionStatus?: ExecutionStatus }): Promise<void> {
    if (options.removeSandbox) await this.dispose();
    if (!this.conversation) return;
    const executionStatus = options.executionStatus ?? (outcome.status === 'COMPLETED' ? 'finished' : outcome.status === 'CANCELLED' ? 'stopped' : 'error');
    // The state update first: the `status` event, with the reason, stays the conversation's last.
    await this.append({ kind: 'ConversationStateUpdateEvent', source: 'environment', message: null, data: { key: 'execution_status', value: executionStatus } });
    await this.append({ kind: 'status', source: 'system', message: null, data: { status: outcome.status, reason: outcome.reason } });
    const current = await this.context.storage.conversations.get(this.conversation);
    if (current) {
      await this.context.storage.conversations.update({
        ...current,
        ...(options.removeSandbox ? { sandbox_status: 'MISSING' as const } : {}),
        execution_status: executionStatus,
        updated_at: nowIso(this.context),
      });
    }
  }

  /** Removes the sandbox, if one was opened and is still there (best effort; never throws). */
  async dispose(): Promise<void> {
    if (!this.sandbox || this.removed) return;
    this.removed = true;
    await removeStoredSandbox(this.context, this.runtime, this.sandbox);
  }

  private append(event: NewConversationEvent): Promise<ConversationEvent> {
    return appendConversationEvent(this.context, this.opened().conversation, scrubSecrets(event, this.secrets));
  }

  private opened(): { sandbox: string; conversation: string } {
    if (!this.sandbox || !this.conversation) throw new Error('AgentSession: open a sandbox and a conversation first');
    return { sandbox: this.sandbox, conversation: this.conversation };
  }
}
