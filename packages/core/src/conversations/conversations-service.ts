/**
 * App conversations (V1). Starting one answers at once with a start task; the work — a sandbox,
 * the conversation, and the agent on its first message — continues in the background, and the
 * task moves through WAITING_FOR_SANDBOX, PREPARING_REPOSITORY (with a `selected_repository`)
 * and STARTING_CONVERSATION to READY (or ERROR).
 * @module
 */
import { keyActor } from '../audit/audit-log.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { PlatformError, notFound, validationError } from '../kernel/errors.js';
import type { AgentJobServices } from '../agents/agent-job.js';
import { appendConversationEvent, userMessageEvent } from '../agents/conversation-record.js';
import { ConversationAgents } from './conversation-agents.js';
import { ConversationEventWatchers } from './event-watchers.js';
import { nextEventSeq, readEventsFrom, readFinalResponse } from '../storage/conversation-log.js';
import type { StorageChange } from '../ports/change-feed.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { Principal } from '../schemas/principal.js';
import {
  appConversationUpdateInputSchema,
  confirmationResponseSchema,
  messageText,
  sendMessageInputSchema,
  toAgentServerEvent,
  startConversationInputSchema,
  type AppConversation,
  type AppConversationRecord,
  type ConversationEvent,
  type StartTask,
  type StartTaskRecord,
} from '../schemas/app-conversation.js';
import type { CursorQuery } from '../schemas/v1-pages.js';
import { parseInput } from '../kernel/validation.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';
import { conversationArchive, type ConversationArchive } from './conversation-export.js';
import { readWorkspaceFile } from './conversation-files.js';
import { isFinalRunStatus } from '../runs/run-transitions.js';

export interface Page<T> {
  items: T[];
  next_page_id: string | null;
}

/**
 * A conversation as returned to its owner; `conversation_url` is where the agent-server subset
 * serves it, `session_api_key` the key it takes there (its sandbox's, while that runs). What only
 * storage and the agent's process use (control requests, the write version) stays out.
 */
const toConversation = (
  { org_id: _org, run_id: _run, pause_requested: _pause, confirmation_response: _answer, version: _version, ...view }: AppConversationRecord,
  publicUrl: string,
  sessionApiKey: string | null,
): AppConversation => ({
  ...view,
  metrics: view.metrics ?? null,
  conversation_url: `${publicUrl}/api/conversations/${view.id}`,
  session_api_key: sessionApiKey,
});
/** A start task as returned; once READY, `agent_server_url` is the platform itself (it serves the agent-server subset). */
const toTask = ({ org_id: _org, ...view }: StartTaskRecord, publicUrl: string): StartTask => ({
  ...view,
  agent_server_url: view.status === 'READY' ? publicUrl : null,
});
/** How often a claim is tried again when writes other than claims keep landing first. */
const MAX_CLAIM_ATTEMPTS = 5;
const cursor = (query: CursorQuery) => ({ limit: query.limit, ...(query.page_id ? { pageId: query.page_id } : {}) });

export class ConversationsService {
  private readonly stopping = new AbortController();
  private readonly watchers: ConversationEventWatchers;
  private readonly agents: ConversationAgents | null;
  private readonly runtime: SandboxRuntime | null;

  constructor(
    private readonly context: ServiceContext,
    /** What agent jobs are built from; `null` without a sandbox runtime. */
    private readonly jobs: AgentJobServices | null,
    options: { timeoutSeconds: number } = { timeoutSeconds: 1800 },
  ) {
    this.watchers = new ConversationEventWatchers(context.storage);
    this.runtime = jobs?.runtime ?? null;
    this.agents = jobs ? new ConversationAgents(context, jobs, options, this.stopping.signal) : null;
  }

  /**
   * Live events: `listener` gets the conversation's events with `seq >= fromSeq`, in order, each
   * once, then every new one as it is stored (here or in another process on the same storage),
   * until the returned function is called. 404 for a conversation that is not the caller's.
   */
  async watchEvents(principal: Principal, id: string, fromSeq: number, listener: (event: ConversationEvent) => void): Promise<() => void> {
    await this.ownedRecord(principal, id);
    return this.watchers.watch(id, fromSeq, listener);
  }

  /** A change from the feed: new events (live streams read on), a control request, or a reset. */
  onChange(change: StorageChange): void {
    if (change.type === 'conversation.events') this.watchers.notify(change.conversationId, change.seq);
    else if (change.type === 'conversation.control') void this.agents?.onControl(change.conversationId).catch(() => {});
    else if (change.type === 'reset') this.watchers.notifyAll();
  }

  /** Starts a conversation; the answer is its start task. */
  async start(principal: Principal, input: unknown): Promise<StartTask> {
    const parsed = parseInput(startConversationInputSchema, input === undefined ? {} : input);
    if (!this.runtime) throw new PlatformError('UNAVAILABLE', 'No sandbox runtime is configured');
    const specs = await this.runtime.listSpecs();
    if (parsed.sandbox_spec_id && !specs.some((spec) => spec.id === parsed.sandbox_spec_id)) {
      throw validationError(['body', 'sandbox_spec_id'], 'unknown sandbox spec: list them with GET /api/v1/sandbox-specs/search');
    }
    const now = nowIso(this.context);
    const task: StartTaskRecord = {
      id: this.context.ids.newId('task'),
      created_by_user_id: principal.userId,
      org_id: principal.orgId,
      status: 'WORKING',
      detail: null,
      app_conversation_id: null,
      sandbox_id: null,
      request: parsed as Record<string, unknown>,
      created_at: now,
      updated_at: now,
    };
    await this.context.storage.startTasks.insert(task);
    this.agents?.start(principal, task);
    return toTask(task, this.context.publicUrl);
  }

  /** Resolves when every conversation started so far has finished its background work. */
  async settled(): Promise<void> {
    await this.agents?.settled();
  }

  /** Stops running agents (their conversations end `stopped`) and waits for the background work. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.settled();
  }

  async search(principal: Principal, query: CursorQuery): Promise<Page<AppConversation>> {
    const page = await this.context.storage.conversations.listByUser(principal.userId, cursor(query));
    return { items: await Promise.all(page.items.map((record) => this.view(record))), next_page_id: page.nextPageId };
  }

  async batchGet(principal: Principal, ids: readonly string[]): Promise<(AppConversation | null)[]> {
    return Promise.all(ids.map(async (id) => this.owned(principal, await this.context.storage.conversations.get(id))));
  }

  async get(principal: Principal, id: string): Promise<AppConversation> {
    const conversation = await this.owned(principal, await this.context.storage.conversations.get(id));
    if (!conversation) throw notFound('Conversation');
    return conversation;
  }

  async events(principal: Principal, id: string, query: CursorQuery): Promise<Page<ConversationEvent>> {
    await this.ownedRecord(principal, id);
    const page = await this.context.storage.conversations.listEvents(id, cursor(query));
    return { items: page.items, next_page_id: page.nextPageId };
  }

  async tasks(principal: Principal, ids: readonly string[]): Promise<(StartTask | null)[]> {
    return Promise.all(
      ids.map(async (id) => {
        const task = await this.context.storage.startTasks.get(id);
        return task && task.created_by_user_id === principal.userId ? toTask(task, this.context.publicUrl) : null;
      }),
    );
  }

  async searchTasks(principal: Principal, query: CursorQuery): Promise<Page<StartTask>> {
    const page = await this.context.storage.startTasks.listByUser(principal.userId, cursor(query));
    return { items: page.items.map((task) => toTask(task, this.context.publicUrl)), next_page_id: page.nextPageId };
  }

  /**
   * Renames the conversation (`title`; `null` clears it). `public` (OpenHands' sharing flag) is a
   * 422: this platform does not share conversations publicly.
   */
  async update(principal: Principal, id: string, input: unknown): Promise<AppConversation> {
    const patch = parseInput(appConversationUpdateInputSchema, input === undefined ? {} : input);
    if (patch.public !== undefined) throw validationError(['body', 'public'], 'public sharing is not supported by this platform');
    const record = await this.ownedRecord(principal, id);
    if (patch.title === undefined) return this.view(record);
    // Nothing read decides it (the owner never changes), so no guard: the last rename wins, and
    // what the agent writes meanwhile stays.
    const renamed = await this.context.storage.conversations.patch(id, { title: patch.title, updated_at: nowIso(this.context) });
    if (!renamed) throw notFound('Conversation');
    return this.view(renamed);
  }

  /**
   * Deletes the conversation with its events and start task, stops its agent (here, and through
   * the change feed in the process running it), and deletes its sandbox. 404 for an unknown
   * conversation or someone else's; 409 for the conversation of an automation run still under
   * way (cancel the run first).
   */
  async delete(principal: Principal, id: string): Promise<void> {
    const record = await this.ownedRecord(principal, id);
    if (record.run_id) {
      const run = await this.context.storage.runs.get(record.org_id, record.run_id);
      if (run && !isFinalRunStatus(run.status)) {
        throw new PlatformError('CONFLICT', `The conversation belongs to automation run ${run.id}, which is ${run.status}: cancel the run first`);
      }
    }
    if (!(await this.context.storage.conversations.delete(id))) throw notFound('Conversation');
    // Its agent stops here, or (hearing of it through the feed) in the process running it; a step
    // it was taking meanwhile finds the conversation gone, and nothing more is recorded.
    this.agents?.stopDeleted(id);
    await this.context.announce({ type: 'conversation.control', conversationId: id });
    if (record.sandbox_id) await this.deleteSandbox(principal, record.sandbox_id);
  }

  /** Each conversation has a sandbox of its own: it goes with the conversation (best effort for the runtime). */
  private async deleteSandbox(principal: Principal, sandboxId: string): Promise<void> {
    const sandbox = await this.context.storage.sandboxes.get(sandboxId);
    if (!sandbox || sandbox.created_by_user_id !== principal.userId) return;
    if (this.runtime && sandbox.runtime === this.runtime.name) await this.runtime.delete(sandboxId).catch(() => {});
    await this.context.storage.sandboxes.delete(sandboxId);
  }

  /**
   * The conversation as a zip of its events, as the OpenHands agent-server lays them out:
   * `meta.json` and one `event-NNNNN-<id>.json` per event (see `conversation-export.ts`).
   */
  async download(principal: Principal, id: string): Promise<ConversationArchive> {
    // Without the session key: an archive is a file, kept and passed around.
    const conversation = toConversation(await this.ownedRecord(principal, id), this.context.publicUrl, null);
    const events = await readEventsFrom(this.context.storage, id);
    return conversationArchive(conversation, events, this.context.clock.now());
  }

  /**
   * The text of a file in the conversation's sandbox workspace: `filePath` absolute inside the
   * workspace, or relative to it; at most 10 MiB. 404 unknown conversation or file; 422 a path
   * outside the workspace, a directory; 409 the sandbox is gone, paused or not running; 503 no
   * runtime. See `conversation-files.ts`.
   */
  async readFile(principal: Principal, id: string, filePath: string): Promise<string> {
    const record = await this.ownedRecord(principal, id);
    if (!this.runtime) throw new PlatformError('UNAVAILABLE', 'No sandbox runtime is configured');
    if (!record.sandbox_id) throw new PlatformError('CONFLICT', 'The conversation has no sandbox');
    const sandbox = await this.runtime.inspect(record.sandbox_id);
    if (sandbox.status === 'MISSING') {
      throw new PlatformError('CONFLICT', 'The conversation’s sandbox is gone (deleted, or its runtime restarted): its files cannot be read');
    }
    if (sandbox.status === 'PAUSED') {
      throw new PlatformError('CONFLICT', `The conversation’s sandbox is paused: resume it first (POST /api/v1/sandboxes/${record.sandbox_id}/resume)`);
    }
    if (sandbox.status !== 'RUNNING') throw new PlatformError('CONFLICT', `The conversation’s sandbox is ${sandbox.status}: its files cannot be read now`);
    return readWorkspaceFile(this.runtime, record.sandbox_id, sandbox.workingDir, filePath);
  }

  private async owned(principal: Principal, record: AppConversationRecord | null): Promise<AppConversation | null> {
    return record && record.created_by_user_id === principal.userId ? this.view(record) : null;
  }

  /** The conversation as returned to its owner. */
  private async view(record: AppConversationRecord): Promise<AppConversation> {
    return toConversation(record, this.context.publicUrl, await this.sessionApiKey(record));
  }

  /** The session key of the conversation's sandbox, opened, while the sandbox runs; else `null`. */
  private async sessionApiKey(record: AppConversationRecord): Promise<string | null> {
    if (!record.sandbox_id) return null;
    const sandbox = await this.context.storage.sandboxes.get(record.sandbox_id).catch(() => null);
    if (sandbox?.status !== 'RUNNING') return null;
    try {
      return this.context.secrets.open(sandbox.session_api_key);
    } catch {
      return null;
    }
  }

  // ----- The agent-server subset -----

  /** A follow-up message. With `run`, an idle agent takes the conversation up again, whole history and all. */
  async sendMessage(principal: Principal, id: string, input: unknown): Promise<{ success: true }> {
    const message = parseInput(sendMessageInputSchema, input);
    const record = await this.ownedRecord(principal, id);
    const text = messageText(message);
    if (text === null) throw validationError(['body', 'content'], 'the message has no text');
    await appendConversationEvent(this.context, id, userMessageEvent(text));
    if (this.isActive(record)) {
      // The agent takes it up between its steps, wherever it runs.
      await this.context.announce({ type: 'conversation.control', conversationId: id });
    } else if (message.run && !(await this.resumeRecord(record, principal))) {
      // Another request started the agent first: it takes the message up between its steps.
      await this.context.announce({ type: 'conversation.control', conversationId: id });
    }
    return { success: true };
  }

  /** Takes the conversation up again with its whole history; 409 when its agent is at work or its sandbox is gone. */
  async resume(principal: Principal, id: string): Promise<{ success: true }> {
    const record = await this.ownedRecord(principal, id);
    if (this.isActive(record) || !(await this.resumeRecord(record, principal))) throw new PlatformError('CONFLICT', 'The agent is already running');
    return { success: true };
  }

  /** Asks the running agent to stop after its current step; the conversation becomes `paused`. */
  async pause(principal: Principal, id: string): Promise<{ success: true }> {
    const record = await this.ownedRecord(principal, id);
    if (!this.isActive(record)) return { success: true };
    // Only the request, unguarded: the agent's status and metrics, written meanwhile, stay, and a
    // request left on a conversation whose agent ended meanwhile is cleared by the next claim.
    await this.context.storage.conversations.patch(id, { pause_requested: true, updated_at: nowIso(this.context) });
    await this.context.announce({ type: 'conversation.control', conversationId: id });
    return { success: true };
  }

  /** Accepts or rejects the action held for confirmation; 409 when none is. */
  async respondToConfirmation(principal: Principal, id: string, input: unknown): Promise<{ success: true }> {
    const answer = parseInput(confirmationResponseSchema, input);
    const record = await this.ownedRecord(principal, id);
    if (record.execution_status !== 'waiting_for_confirmation') throw new PlatformError('CONFLICT', 'No action is waiting for confirmation');
    const pending = await this.lastEvent(id, (event) => event.kind === 'ActionEvent');
    if (!pending) throw new PlatformError('CONFLICT', 'No action is waiting for confirmation');
    // Unguarded: the answer names the action it answers, and the agent takes only the answer to
    // the action it holds, so one landing after the agent moved on is never acted on.
    await this.context.storage.conversations.patch(id, {
      confirmation_response: { action_id: pending.id, accept: answer.accept, reason: answer.reason ?? '' },
      updated_at: nowIso(this.context),
    });
    await this.context.announce({ type: 'conversation.control', conversationId: id });
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: answer.accept ? 'action.approved' : 'action.rejected',
      target: { type: 'conversation', id },
      details: { action_id: pending.id },
    });
    return { success: true };
  }

  /** The agent's final answer: its `finish` message, or its last message; `""` before it gave one. */
  async finalResponse(principal: Principal, id: string): Promise<{ response: string }> {
    await this.ownedRecord(principal, id);
    return { response: await readFinalResponse(this.context.storage, id) };
  }

  /** Events in the agent-server shape (`{ id, timestamp, source, kind, ...data }`), oldest first. */
  async searchAgentServerEvents(principal: Principal, id: string, query: CursorQuery): Promise<Page<Record<string, unknown>>> {
    const page = await this.events(principal, id, query);
    return { items: page.items.map(toAgentServerEvent), next_page_id: page.next_page_id };
  }

  async countEvents(principal: Principal, id: string): Promise<number> {
    await this.ownedRecord(principal, id);
    return nextEventSeq(this.context.storage, id);
  }

  /**
   * The conversation's owner, when `key` is the session key of the conversation's sandbox (the
   * agent-server's `X-Session-API-Key`: what runs in the sandbox, or a client handed
   * `conversation_url` with it, acts for the owner on this conversation only); else `null`.
   * Compared in constant time on SHA-256 digests.
   */
  async authenticateSessionKey(key: string, conversationId: string): Promise<Principal | null> {
    const record = await this.context.storage.conversations.get(conversationId).catch(() => null);
    if (!record?.sandbox_id) return null;
    const sandbox = await this.context.storage.sandboxes.get(record.sandbox_id).catch(() => null);
    if (sandbox?.status !== 'RUNNING') return null;
    let expected: string;
    try {
      expected = this.context.secrets.open(sandbox.session_api_key);
    } catch {
      return null;
    }
    const digest = (value: string) => createHash('sha256').update(value).digest();
    return timingSafeEqual(digest(key), digest(expected)) ? { userId: record.created_by_user_id, orgId: record.org_id, role: 'member' } : null;
  }

  /** Whether the conversation's agent is at work, here or in another process. */
  private isActive(record: AppConversationRecord): boolean {
    return Boolean(this.agents?.isRunningHere(record.id)) || record.execution_status === 'running' || record.execution_status === 'waiting_for_confirmation';
  }

  /**
   * Runs the agent again on the stored history (see `ConversationAgents.resume`); false, and
   * nothing started, when another request started it first. A paused sandbox is a 409: the user
   * paused it, and resuming the agent must not undo that silently.
   */
  private async resumeRecord(record: AppConversationRecord, principal: Principal): Promise<boolean> {
    if (!this.runtime || !this.agents || !this.jobs?.agent) throw new PlatformError('UNAVAILABLE', 'No sandbox runtime or agent is configured');
    const sandbox = record.sandbox_id ? await this.runtime.inspect(record.sandbox_id).catch(() => null) : null;
    if (sandbox?.status === 'PAUSED') throw new PlatformError('CONFLICT', "The conversation's sandbox is paused: resume it first");
    const claimed = await this.claim(record);
    if (claimed) this.agents.resume(principal, claimed);
    return claimed !== null;
  }

  /**
   * Sets the conversation running for a new run of its agent (clearing a pause left from the last
   * one), guarded by the version read: of concurrent claims, here or in other processes, exactly
   * one wins, and the others answer `null`, as if they had come second. A write of another kind
   * in between (the last run's metrics, a rename) is no claim: the record is read again, and
   * claimed if no agent is at work on it.
   */
  private async claim(read: AppConversationRecord): Promise<AppConversationRecord | null> {
    let record = read;
    for (let attempt = 1; ; attempt += 1) {
      const changes = { execution_status: 'running' as const, pause_requested: null, updated_at: nowIso(this.context) };
      const claimed = await this.context.storage.conversations.patch(record.id, changes, { version: record.version });
      if (claimed) return claimed;
      const latest = await this.context.storage.conversations.get(record.id);
      if (!latest) throw notFound('Conversation');
      if (this.isActive(latest)) return null;
      if (attempt >= MAX_CLAIM_ATTEMPTS) throw new PlatformError('CONFLICT', 'The conversation keeps changing: try again');
      record = latest;
    }
  }

  private async ownedRecord(principal: Principal, id: string): Promise<AppConversationRecord> {
    const record = await this.context.storage.conversations.get(id);
    if (!record || record.created_by_user_id !== principal.userId) throw notFound('Conversation');
    return record;
  }

  private async lastEvent(id: string, matches: (event: ConversationEvent) => boolean): Promise<ConversationEvent | null> {
    return (await readEventsFrom(this.context.storage, id)).findLast(matches) ?? null;
  }
}
