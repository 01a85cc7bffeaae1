/**
 * App conversations (V1). Starting one answers at once with a start task; the work — a sandbox,
 * the conversation, and the agent on its first message — continues in the background, and the
 * task moves through WAITING_FOR_SANDBOX and STARTING_CONVERSATION to READY (or ERROR).
 * @module
 */
import { PlatformError, notFound, validationError } from '../errors.js';
import type { AgentRunner } from '../ports/agent-runner.js';
import { AgentSession } from '../runs/agent-session.js';
import { ConversationEventWatchers } from '../runs/event-watchers.js';
import type { StorageChange } from '../ports/change-feed.js';
import { newConversationRecord } from '../runs/records.js';
import type { SandboxRuntime } from '../ports/sandbox-runtime.js';
import type { Principal } from '../schemas/principal.js';
import {
  startConversationInputSchema,
  type AppConversation,
  type AppConversationRecord,
  type ConversationEvent,
  type StartTask,
  type StartTaskRecord,
} from '../schemas/app-conversation.js';
import type { CursorQuery } from '../schemas/v1-pages.js';
import { parseInput } from '../validation.js';
import { nowIso, type ServiceContext } from './context.js';
import type { SettingsService } from './settings-service.js';

export interface Page<T> {
  items: T[];
  next_page_id: string | null;
}

const toConversation = ({ org_id: _org, run_id: _run, ...view }: AppConversationRecord): AppConversation => ({ ...view, metrics: view.metrics ?? null });
const toTask = ({ org_id: _org, ...view }: StartTaskRecord): StartTask => view;
const cursor = (query: CursorQuery) => ({ limit: query.limit, ...(query.page_id ? { pageId: query.page_id } : {}) });

export class ConversationsService {
  private readonly background = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly watchers: ConversationEventWatchers;

  constructor(
    private readonly context: ServiceContext,
    private readonly settings: SettingsService,
    private readonly runtime: SandboxRuntime | null,
    private readonly agent: AgentRunner | null,
    private readonly options: { timeoutSeconds: number } = { timeoutSeconds: 1800 },
  ) {
    this.watchers = new ConversationEventWatchers(context.storage);
  }

  /**
   * Live events: `listener` gets the conversation's events with `seq >= fromSeq`, in order, each
   * once, then every new one as it is stored (here or in another process on the same storage),
   * until the returned function is called. 404 for a conversation that is not the caller's.
   */
  async watchEvents(principal: Principal, id: string, fromSeq: number, listener: (event: ConversationEvent) => void): Promise<() => void> {
    await this.get(principal, id);
    return this.watchers.watch(id, fromSeq, listener);
  }

  /** A change from the feed: new events (live streams read on), a control request, or a reset. */
  onChange(change: StorageChange): void {
    if (change.type === 'conversation.events') this.watchers.notify(change.conversationId, change.seq);
    else if (change.type === 'reset') this.watchers.notifyAll();
  }

  /** Starts a conversation; the answer is its start task. */
  async start(principal: Principal, input: unknown): Promise<StartTask> {
    const parsed = parseInput(startConversationInputSchema, input === undefined ? {} : input);
    if (!this.runtime) throw new PlatformError('UNAVAILABLE', 'No sandbox runtime is configured');
    const specs = await this.runtime.listSpecs();
    if (parsed.sandbox_spec_id && !specs.some((spec) => spec.id === parsed.sandbox_spec_id)) {
      throw validationError(['body', 'sandbox_spec_id'], `unknown sandbox spec "${parsed.sandbox_spec_id}"`);
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
    const work = this.work(principal, task).finally(() => this.background.delete(work));
    this.background.add(work);
    return toTask(task);
  }

  /** Resolves when every conversation started so far has finished its background work. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.background]);
  }

  /** Stops running agents (their conversations end `stopped`) and waits for the background work. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.settled();
  }

  async search(principal: Principal, query: CursorQuery): Promise<Page<AppConversation>> {
    const page = await this.context.storage.conversations.listByUser(principal.userId, cursor(query));
    return { items: page.items.map(toConversation), next_page_id: page.nextPageId };
  }

  async batchGet(principal: Principal, ids: readonly string[]): Promise<(AppConversation | null)[]> {
    return Promise.all(ids.map(async (id) => this.owned(principal, await this.context.storage.conversations.get(id))));
  }

  async get(principal: Principal, id: string): Promise<AppConversation> {
    const conversation = this.owned(principal, await this.context.storage.conversations.get(id));
    if (!conversation) throw notFound('Conversation');
    return conversation;
  }

  async events(principal: Principal, id: string, query: CursorQuery): Promise<Page<ConversationEvent>> {
    await this.get(principal, id);
    const page = await this.context.storage.conversations.listEvents(id, cursor(query));
    return { items: page.items, next_page_id: page.nextPageId };
  }

  async tasks(principal: Principal, ids: readonly string[]): Promise<(StartTask | null)[]> {
    return Promise.all(
      ids.map(async (id) => {
        const task = await this.context.storage.startTasks.get(id);
        return task && task.created_by_user_id === principal.userId ? toTask(task) : null;
      }),
    );
  }

  async searchTasks(principal: Principal, query: CursorQuery): Promise<Page<StartTask>> {
    const page = await this.context.storage.startTasks.listByUser(principal.userId, cursor(query));
    return { items: page.items.map(toTask), next_page_id: page.nextPageId };
  }

  private owned(principal: Principal, record: AppConversationRecord | null): AppConversation | null {
    return record && record.created_by_user_id === principal.userId ? toConversation(record) : null;
  }

  private async work(principal: Principal, task: StartTaskRecord): Promise<void> {
    const request = parseInput(startConversationInputSchema, task.request);
    let current = task;
    const update = async (changes: Partial<StartTaskRecord>) => {
      current = { ...current, ...changes, updated_at: nowIso(this.context) };
      await this.context.storage.startTasks.update(current);
    };
    try {
      const session = new AgentSession(this.context, this.runtime as SandboxRuntime, this.agent as AgentRunner, principal);
      await update({ status: 'WAITING_FOR_SANDBOX' });
      const sandboxId = await session.openSandbox(request.sandbox_spec_id ?? null);
      await update({ sandbox_id: sandboxId, status: 'STARTING_CONVERSATION' });
      const message = typeof request.initial_message === 'string' ? request.initial_message : (request.initial_message?.content ?? null);
      const runsAgent = Boolean(message && this.agent);
      const conversation = await session.openConversation(
        newConversationRecord(this.context, {
          owner: principal,
          sandboxId,
          trigger: 'api',
          title: request.title ?? (message ? message.slice(0, 80) : null),
          selectedRepository: request.selected_repository ?? null,
          selectedBranch: request.selected_branch ?? null,
          gitProvider: request.git_provider ?? null,
          llmModel: request.llm_model ?? null,
          running: runsAgent,
        }),
        message,
      );
      await update({ status: 'READY', app_conversation_id: conversation.id });
      if (runsAgent) await this.runAgent(principal, session, message as string, request.llm_model ?? null);
    } catch (error) {
      await update({ status: 'ERROR', detail: error instanceof Error ? error.message : String(error) }).catch(() => {});
    }
  }

  /** The agent works on the first message; the sandbox stays for the user to inspect or delete. */
  private async runAgent(principal: Principal, session: AgentSession, message: string, llmModel: string | null): Promise<void> {
    const settings = await this.settings.agentSettings(principal.userId);
    if (llmModel) settings.llmModel = llmModel;
    const outcome = await session.run(
      { runId: null, instructions: message, eventPayloadJson: null, settings, timeoutMs: this.options.timeoutSeconds * 1000, signal: this.stopping.signal },
      () => `timed out after ${this.options.timeoutSeconds} s`,
    );
    await session.close(outcome, { removeSandbox: false });
  }
}
