import { requireBudget } from '../budgets/budget-refusal.js';
import type { z } from 'zod';
import type { AutomationIndex } from '../matching/automation-index.js';
import { PlatformError, notFound, validationError } from '../kernel/errors.js';
import type { PageQuery } from '../schemas/common.js';
import type { Principal } from '../schemas/principal.js';
import {
  automationCreateInputSchema,
  automationDispatchInputSchema,
  automationTriggerSchema,
  automationUpdateInputSchema,
  promptAutomationInputSchema,
  type Automation,
  type AutomationHealth,
  type AutomationList,
  type AutomationRecord,
} from '../schemas/automation.js';
import type { OrgRunPage, OrgRunsQuery, Run, RunList, RunRecord, RunStatus } from '../schemas/run.js';
import type { ConversationEvent } from '../schemas/app-conversation.js';
import type { CursorQuery } from '../schemas/v1-pages.js';
import { decodePageCursor, encodePageCursor } from '../storage/paging.js';
import { checkReporting } from './reporting-rule.js';
import type { TriggerMarks } from '../ingest/trigger-marks.js';
import { mergedTrigger, storedTrigger } from './stored-trigger.js';
import { hasRole, roleOf } from '../kernel/roles.js';
import { keyActor } from '../audit/audit-log.js';
import { newRunRecord } from '../runs/run-record.js';
import { cancelRun } from '../runs/run-lifecycle.js';
import { toRunView } from '../runs/run-view.js';
import { parseInput } from '../kernel/validation.js';
import type { AutomationValidation } from '../schemas/automation-validation.js';
import { validateAutomationDraft } from './automation-validation.js';
import { nowIso, type ServiceContext } from '../kernel/context.js';

/** Most PENDING runs `health()` counts. */
export const HEALTH_PENDING_LIMIT = 100;

export { toRunView };

/** A dispatch payload as stored: 422 when it cannot be serialized (nested too deep for `JSON.stringify`). */
function serializePayload(payload: unknown): string {
  try {
    return JSON.stringify(payload);
  } catch {
    throw validationError(['body', 'payload'], 'payload cannot be stored: nested too deep or not plain JSON', 'value_error');
  }
}

/** A member changes only the automations they created; an admin (or owner) changes any. */
function mayChange(principal: Principal, automation: AutomationRecord): void {
  if (automation.created_by === principal.userId || hasRole(principal, 'admin')) return;
  throw new PlatformError(
    'FORBIDDEN',
    `Changing another member's automation needs the admin role; this key has ${roleOf(principal)} (the automation is ${automation.created_by}'s)`,
  );
}

/**
 * Event automations. They belong to the org. Every change drops the matching index
 * of the sources involved, here and (through the change feed) in every process sharing the
 * storage, so the next event anywhere sees it.
 */
export class AutomationsService {
  constructor(
    private readonly context: ServiceContext,
    private readonly index: AutomationIndex,
    /** Marks this process's deliveries noted, flushed before a read so it sees its own triggers. */
    private readonly triggerMarks: TriggerMarks | null = null,
  ) {}

  async create(principal: Principal, input: unknown): Promise<Automation> {
    return this.insert(principal, parseInput(automationCreateInputSchema, input));
  }

  /**
   * The OpenHands automation service's create (`POST /api/automation/v1/preset/prompt`): `prompt`
   * is the instructions, `model` the `llm_model`, `timeout` the `timeout_seconds`; otherwise as
   * {@link create}.
   */
  /**
   * `POST /api/automation/v1/validate`: checks a draft as {@link create} does and evaluates its
   * trigger against a sample payload and the source's recent deliveries. Stores nothing.
   */
  async validate(principal: Principal, input: unknown): Promise<AutomationValidation> {
    return validateAutomationDraft(this.context, principal, input);
  }

  async createFromPrompt(principal: Principal, input: unknown): Promise<Automation> {
    const parsed = parseInput(promptAutomationInputSchema, input);
    return this.insert(principal, {
      name: parsed.name,
      enabled: parsed.enabled ?? true,
      trigger: parsed.trigger,
      instructions: parsed.prompt,
      sandbox_spec_id: parsed.sandbox_spec_id,
      llm_model: parsed.model,
      selected_repository: parsed.selected_repository,
      timeout_seconds: parsed.timeout,
    });
  }

  /**
   * `GET /api/automation/health`: the storage answers (else 503), and how many runs wait for an
   * executor across all orgs, counted up to {@link HEALTH_PENDING_LIMIT} (one bounded read).
   */
  async health(): Promise<AutomationHealth> {
    try {
      await this.context.storage.ping();
    } catch (error) {
      throw new PlatformError('UNAVAILABLE', 'Storage is not reachable', { cause: error });
    }
    const pending = await this.context.storage.runs.listByStatus('PENDING', HEALTH_PENDING_LIMIT);
    return { status: 'ok', storage: 'ok', pending_runs: pending.length };
  }

  private async insert(principal: Principal, parsed: z.output<typeof automationCreateInputSchema>): Promise<Automation> {
    const now = nowIso(this.context);
    const trigger = storedTrigger(parsed.trigger);
    const record: AutomationRecord = {
      id: this.context.ids.newId('auto'),
      org_id: principal.orgId,
      created_by: principal.userId,
      name: parsed.name,
      enabled: parsed.enabled,
      trigger,
      instructions: parsed.instructions,
      sandbox_spec_id: parsed.sandbox_spec_id ?? null,
      llm_model: parsed.llm_model ?? null,
      selected_repository: parsed.selected_repository ?? null,
      timeout_seconds: parsed.timeout_seconds ?? null,
      concurrency_key: parsed.concurrency_key ?? null,
      on_conflict: parsed.on_conflict ?? 'queue',
      debounce_seconds: parsed.debounce_seconds ?? null,
      rate_limit: parsed.rate_limit ?? null,
      // A mention or label is someone asking in a thread: the answer goes there unless turned off.
      report_to_github: parsed.report_to_github ?? Boolean(trigger.mention || trigger.label),
      github_repositories: parsed.github_repositories ?? [],
      allowed_actors: parsed.allowed_actors ?? null,
      slack_channels: parsed.slack_channels ?? null,
      slack_user_groups: parsed.slack_user_groups ?? null,
      created_at: now,
      updated_at: now,
      last_triggered_at: null,
    };
    checkReporting(record);
    await this.context.storage.automations.insert(record);
    await this.changed(record);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'automation.created',
      target: { type: 'automation', id: record.id },
      details: { name: record.name },
    });
    return record;
  }

  async list(principal: Principal, page: PageQuery): Promise<AutomationList> {
    // Marks noted by this process's deliveries land first, so a read sees its own triggers.
    await this.triggerMarks?.flush();
    const { items, total } = await this.context.storage.automations.list(principal.orgId, page);
    return { automations: items, total };
  }

  async get(principal: Principal, id: string): Promise<Automation> {
    await this.triggerMarks?.flush();
    return this.load(principal, id);
  }

  async update(principal: Principal, id: string, input: unknown): Promise<Automation> {
    // Only a missing body means "no change": an explicit JSON null is a 422.
    const parsed = parseInput(automationUpdateInputSchema, input === undefined ? {} : input);
    const record = await this.load(principal, id);
    mayChange(principal, record);
    let trigger = record.trigger;
    if (parsed.trigger) {
      // Members given replace the stored ones; the merged trigger is validated as a whole.
      const merged = parseInput(automationTriggerSchema, mergedTrigger(record.trigger, parsed.trigger), 'body');
      trigger = storedTrigger(merged);
    }
    const updated: AutomationRecord = {
      ...record,
      name: parsed.name ?? record.name,
      enabled: parsed.enabled ?? record.enabled,
      trigger,
      instructions: parsed.instructions ?? record.instructions,
      sandbox_spec_id: parsed.sandbox_spec_id !== undefined ? parsed.sandbox_spec_id : record.sandbox_spec_id,
      llm_model: parsed.llm_model !== undefined ? parsed.llm_model : record.llm_model,
      selected_repository: parsed.selected_repository !== undefined ? parsed.selected_repository : record.selected_repository,
      timeout_seconds: parsed.timeout_seconds !== undefined ? parsed.timeout_seconds : record.timeout_seconds,
      concurrency_key: parsed.concurrency_key !== undefined ? parsed.concurrency_key : (record.concurrency_key ?? null),
      on_conflict: parsed.on_conflict ?? record.on_conflict ?? 'queue',
      debounce_seconds: parsed.debounce_seconds !== undefined ? parsed.debounce_seconds : (record.debounce_seconds ?? null),
      rate_limit: parsed.rate_limit !== undefined ? parsed.rate_limit : (record.rate_limit ?? null),
      report_to_github: parsed.report_to_github ?? record.report_to_github ?? false,
      github_repositories: parsed.github_repositories ?? record.github_repositories ?? [],
      allowed_actors: parsed.allowed_actors !== undefined ? parsed.allowed_actors : (record.allowed_actors ?? null),
      slack_channels: parsed.slack_channels !== undefined ? parsed.slack_channels : (record.slack_channels ?? null),
      slack_user_groups: parsed.slack_user_groups !== undefined ? parsed.slack_user_groups : (record.slack_user_groups ?? null),
      updated_at: nowIso(this.context),
    };
    checkReporting(updated);
    if (!(await this.context.storage.automations.update(updated))) throw notFound('Automation');
    await this.changed(record, updated);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'automation.updated',
      target: { type: 'automation', id: record.id },
      details: { fields: Object.keys(parsed).filter((field) => (parsed as Record<string, unknown>)[field] !== undefined) },
    });
    return updated;
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const record = await this.load(principal, id);
    mayChange(principal, record);
    if (!(await this.context.storage.automations.delete(principal.orgId, id))) throw notFound('Automation');
    await this.changed(record);
    await this.context.audit.record(principal.orgId, keyActor(principal), {
      action: 'automation.deleted',
      target: { type: 'automation', id: record.id },
      details: { name: record.name },
    });
  }

  /** A manual run: PENDING, with the optional payload standing in for an event. */
  async dispatch(principal: Principal, id: string, input: unknown): Promise<Run> {
    const parsed = parseInput(automationDispatchInputSchema, input === undefined ? {} : input);
    const payloadJson = parsed.payload ? serializePayload(parsed.payload) : null;
    const automation = await this.load(principal, id);
    // Past a cap of the org, the automation's owner or the automation: 429 now, not a run that would not start.
    await requireBudget(this.context, { orgId: automation.org_id, userId: automation.created_by, automationId: automation.id });
    const run = newRunRecord(this.context, {
      orgId: automation.org_id,
      automationId: automation.id,
      createdAt: nowIso(this.context),
      manual: { createdBy: principal.userId, payloadJson },
    });
    await this.context.storage.transaction(async (tx) => {
      await tx.runs.insertMany([run]);
      await tx.automations.markTriggered(automation.org_id, [automation.id], run.created_at);
    });
    await this.context.announce({ type: 'runs.pending' });
    // A new run has reported nothing yet.
    return toRunView(run, null);
  }

  async listRuns(principal: Principal, id: string, page: PageQuery): Promise<RunList> {
    await this.load(principal, id);
    const { items, total } = await this.context.storage.runs.listByAutomation(principal.orgId, id, page);
    // One read for the page's reports, not one per run.
    const reports = await this.context.storage.runReports.getMany(
      principal.orgId,
      items.map((run) => run.id),
    );
    return { runs: items.map((run) => toRunView(run, reports.get(run.id) ?? null)), total };
  }

  /**
   * The org's runs across its automations, newest first, narrowed by status, automation and
   * creation time; `page_id` continues a page (it names the last run of the page before, so runs
   * created meanwhile never repeat or shift one).
   */
  async listOrgRuns(principal: Principal, query: OrgRunsQuery): Promise<OrgRunPage> {
    const before = query.page_id === undefined ? undefined : decodePageCursor(query.page_id);
    // One more than asked tells whether a next page exists without a count.
    const found = await this.context.storage.runs.listByOrg(principal.orgId, {
      limit: query.limit + 1,
      ...(query.status ? { statuses: query.status.split(',') as RunStatus[] } : {}),
      ...(query.automation_id ? { automationId: query.automation_id } : {}),
      ...(query.since ? { since: query.since } : {}),
      ...(before ? { before } : {}),
    });
    const items = found.slice(0, query.limit);
    const reports = await this.context.storage.runReports.getMany(
      principal.orgId,
      items.map((run) => run.id),
    );
    const last = items.at(-1);
    return {
      items: items.map((run) => toRunView(run, reports.get(run.id) ?? null)),
      next_page_id: found.length > query.limit && last ? encodePageCursor(last) : null,
    };
  }

  /** One run of the caller's org, whichever automation it belongs to. */
  async getRun(principal: Principal, runId: string): Promise<Run> {
    const run = await this.context.storage.runs.get(principal.orgId, runId);
    if (!run) throw notFound('Run');
    return toRunView(run, await this.context.storage.runReports.get(principal.orgId, runId));
  }

  /**
   * A run's events, oldest first, for anyone in the run's org: its conversation is its owner's,
   * but the run's page (a link shared in the org) tells its story to all. The runs of a thread
   * share one conversation: a thread run's events are those written from its (latest attempt's)
   * start to its end.
   */
  async runEvents(principal: Principal, runId: string, query: CursorQuery): Promise<{ items: ConversationEvent[]; next_page_id: string | null }> {
    const run = await this.context.storage.runs.get(principal.orgId, runId);
    if (!run) throw notFound('Run');
    if (!run.conversation_id) return { items: [], next_page_id: null };
    const page = await this.context.storage.conversations.listEvents(run.conversation_id, {
      limit: query.limit,
      ...(query.page_id ? { pageId: query.page_id } : {}),
    });
    return { items: run.thread_key ? page.items.filter((event) => duringRun(run, event)) : page.items, next_page_id: page.nextPageId };
  }

  /**
   * Cancels a run that has not finished — one compare-and-set from PENDING or RUNNING, so it wins
   * or loses against the executor's own transitions as a whole; 409 when the run already ended.
   * The process executing it hears of it through the change feed and stops its agent.
   */
  async cancelRun(principal: Principal, runId: string): Promise<Run> {
    const cancelled = await cancelRun(this.context, { orgId: principal.orgId, id: runId }, 'cancelled by user');
    if (cancelled) {
      await this.context.audit.record(principal.orgId, keyActor(principal), { action: 'run.cancelled', target: { type: 'run', id: runId }, details: {} });
    }
    if (!cancelled) {
      const run = await this.context.storage.runs.get(principal.orgId, runId);
      if (!run) throw notFound('Run');
      throw new PlatformError('CONFLICT', `Run already finished with status ${run.status}`);
    }
    return toRunView(cancelled, await this.context.storage.runReports.get(cancelled.org_id, cancelled.id));
  }

  /**
   * After a change committed: this process's matching index drops the sources involved at once,
   * and every other process sharing the storage hears of it through the change feed.
   */
  private async changed(first: AutomationRecord, ...others: AutomationRecord[]): Promise<void> {
    const sources = new Set([first, ...others].map((record) => record.trigger.source));
    const orgId = first.org_id;
    for (const source of sources) this.index.invalidate(orgId, source);
    await Promise.all([...sources].map((source) => this.context.announce({ type: 'automations.changed', orgId, source })));
  }

  private async load(principal: Principal, id: string): Promise<AutomationRecord> {
    const record = await this.context.storage.automations.get(principal.orgId, id);
    if (!record) throw notFound('Automation');
    return record;
  }
}

/** Whether a thread run wrote `event`: it was written between the run's start and its end. */
function duringRun(run: RunRecord, event: ConversationEvent): boolean {
  const at = Date.parse(event.created_at);
  return at >= Date.parse(run.started_at ?? run.created_at) && (run.completed_at === null || at <= Date.parse(run.completed_at));
}
