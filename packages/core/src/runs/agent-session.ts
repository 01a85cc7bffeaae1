/**
 * What automation runs and API-started conversations share: a stored sandbox started on the
 * runtime, and an agent whose events are written to a conversation as they happen.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { AgentOutcome, AgentRunInput, AgentRunner } from '../ports/agent-runner.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { AppConversationRecord, ConversationEvent } from '../schemas/app-conversation.js';
import type { SandboxRecord } from '../schemas/sandbox.js';
import { nowIso, type ServiceContext } from '../services/context.js';

export type NewConversationEvent = Pick<ConversationEvent, 'kind' | 'source' | 'message' | 'data'>;

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

export async function appendConversationEvent(context: ServiceContext, conversationId: string, event: NewConversationEvent): Promise<void> {
  await context.storage.conversations.appendEvents(conversationId, [
    { id: context.ids.newId('evt'), conversation_id: conversationId, created_at: nowIso(context), ...event },
  ]);
}

/**
 * Runs the agent and writes each thing it does to the conversation; ends with a `status` event
 * and the conversation's execution status. Returns the outcome.
 */
export async function runAgentInConversation(
  context: ServiceContext,
  agent: AgentRunner,
  input: AgentRunInput,
  describeTimeout: () => string,
): Promise<AgentOutcome> {
  const conversationId = input.conversationId;
  let outcome: AgentOutcome = { status: 'FAILED', reason: 'the agent reported no outcome' };
  for await (const event of agent.run(input)) {
    if (event.type === 'output') await appendConversationEvent(context, conversationId, { kind: 'agent_output', source: 'agent', message: event.message, data: null });
    else if (event.type === 'event') await appendConversationEvent(context, conversationId, { kind: 'agent_event', source: 'agent', message: null, data: event.data });
    else outcome = event.outcome.status === 'TIMED_OUT' ? { status: 'TIMED_OUT', reason: describeTimeout() } : event.outcome;
  }
  return outcome;
}

/** Records how the agent ended: a `status` event, and the conversation's execution status. */
export async function closeConversation(
  context: ServiceContext,
  conversationId: string,
  outcome: AgentOutcome,
  changes: Partial<AppConversationRecord> = {},
): Promise<void> {
  const executionStatus = outcome.status === 'COMPLETED' ? 'finished' : outcome.status === 'CANCELLED' ? 'stopped' : 'error';
  await appendConversationEvent(context, conversationId, { kind: 'status', source: 'system', message: null, data: { status: outcome.status, reason: outcome.reason } });
  const current = await context.storage.conversations.get(conversationId);
  if (current) await context.storage.conversations.update({ ...current, ...changes, execution_status: executionStatus, updated_at: nowIso(context) });
}
