/**
 * The answer where a run's event was written, for runs of automations with `report_to_github`,
 * from the run events, on whichever host the event came from (the answer-back port,
 * `ports/answer-host.ts`; GitHub built in): when an attempt starts (`run.started`), the host's
 * acknowledgement (👀 on the comment, issue or pull request that asked); when the run ends
 * (`run.finished`) — whichever process ended it: the executor, a cancel over the API, flow
 * control, the recovery of a dead worker's run — one comment in that thread with the outcome and
 * a link to the run (edited, not posted again, by a later report of the same run). With the
 * automation owner's credentials, and in their `language` (the comments' fixed phrases, numbers
 * and dates). What was reported, or why it could not be (no token, the host refused), is the
 * run's report, this feature's own record (`storage.runReports`); a report never changes a run's
 * status and never holds a credential.
 *
 * Reports run in the background, one after another per run (a run's comment never overtakes its
 * reaction); the run event bus's `idle()` waits for those under way. The comment is owed from the
 * attempt's start (`comment_due`, written before the agent runs) until it is posted or found
 * impossible; a worker killed in between leaves it owed, and any process's sweep
 * ({@link RunReporter.sweep}, from `start()` on, every minute) posts it later — at most
 * once per run, its marker found.
 * @module
 */
import type { ServiceContext } from '../kernel/context.js';
import type { RunEventBus } from '../kernel/run-event-bus.js';
import type { AgentSettings, PendingAction } from '../ports/agent-runner.js';
import type { SolvabilityEstimate } from '../ports/solvability.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { RunRecord, RunReport } from '../schemas/run.js';
import { FINAL_RUN_STATUSES } from '../schemas/vocabulary.js';
import { finalResponseOf, readEventsFrom } from '../storage/conversation-log.js';
import type { GitHubApi } from '../github/github-api.js';
import { heldComment, onItComment, outcomeComment, runMarker, type RunAnswer } from '../github/outcome-comment.js';
import { HostError, type AnswerChannel, type AnswerHost, type AnswerThread, type PostedAnswer } from '../ports/answer-host.js';
import { createGitHubAnswerHost } from './github-answer-host.js';

export interface RunReporterOptions {
  /** The owner's settings, decrypted (their tokens and host). */
  settingsOf(userId: string): Promise<AgentSettings>;
  /** Where a person sees the run, linked from the comment; `null` for no link. */
  runUrl(run: RunRecord): string | null;
  /** The hosts answered on, by the source of the run's delivery. Default: GitHub alone. */
  hosts?: readonly AnswerHost[];
  /** The GitHub API for a token and host, for the default GitHub host. Default: `@octokit/rest`. */
  apiFor?(token: string, host: string | null): GitHubApi;
  /**
   * How likely the agent is to solve the issue (`null`: not asked — the owner turned
   * `enable_solvability_analysis` off, or no estimator is configured); shown in "on it".
   */
  estimate?(automation: AutomationRecord, issue: { repository: string; title: string; body: string }): Promise<SolvabilityEstimate | null>;
}

/** A run's reporting context: its automation, thread and channel, or why it reports nothing. */
type Reporting =
  | { automation: AutomationRecord; thread: AnswerThread; channel: AnswerChannel; language: string | null }
  | { automation: AutomationRecord; none: string }
  | null;

/** How often a process asks for outcome comments owed by workers that died. */
const SWEEP_EVERY_MS = 60_000;

export class RunReporter {
  /** The report under way per run, each one chained after the one before it. */
  private readonly chains = new Map<string, Promise<void>>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly hosts: readonly AnswerHost[];

  constructor(
    private readonly context: ServiceContext,
    private readonly options: RunReporterOptions,
  ) {
    this.hosts = options.hosts ?? [createGitHubAnswerHost(options.apiFor ? { apiFor: options.apiFor } : {})];
  }

  /** Answers from now on for the runs this process starts and ends. */
  subscribe(bus: RunEventBus): void {
    bus.on('run.started', ({ run, automation }) => (automation ? this.started(run, automation) : undefined));
    bus.on('run.finished', ({ run }) => this.finished(run));
    bus.on('run.held', ({ run, action }) => this.enqueue(run, () => this.askApproval(run, action)));
  }

  /** Sweeps for owed comments now and every minute, until {@link stop}. */
  start(): void {
    if (this.sweepTimer) return;
    void this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
    this.sweepTimer.unref();
  }

  stop(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
  }

  /**
   * An attempt of `run`, of `automation`, started (it is RUNNING). Resolves once the outcome
   * comment is recorded as owed (for automations that report); the reaction follows in the
   * background. Never rejects.
   */
  async started(run: RunRecord, automation: AutomationRecord): Promise<void> {
    // Most automations do not report: nothing to queue, nothing to read.
    if (!automation.report_to_github || !run.delivery_id) return;
    // Owed before the agent runs, so a worker killed after the run's end still leaves it owed.
    const current = await this.context.storage.runReports.get(run.org_id, run.id).catch(() => null);
    if (current?.comment_due !== true) {
      await this.write(run, { ...blank(current), comment_due: true }).catch((error: unknown) => {
        this.context.logger.warn({ kind: 'run', runId: run.id, orgId: run.org_id, err: String(error) }, 'run report: could not record the comment as owed');
      });
    }
    this.enqueue(run, () => this.react(run, automation));
  }

  /** `run` reached its final status. */
  finished(run: RunRecord): void {
    if (!FINAL_RUN_STATUSES.includes(run.status) || run.started_at === null) return;
    this.enqueue(run, () => this.comment(run));
  }

  /**
   * Takes on the outcome comments still owed by runs that ended a while ago (a worker died before
   * posting them): those that ended within {@link SWEEP_AFTER_MS} may have a live worker posting
   * theirs, and those under way here are left alone. An executor calls it when it starts and
   * every minute.
   */
  async sweep(): Promise<number> {
    let owed: Array<{ run: RunRecord; report: RunReport }>;
    try {
      owed = await this.context.storage.runReports.listDue(SWEEP_BATCH);
    } catch {
      return 0; // The storage is unavailable: the next sweep asks again.
    }
    const before = this.context.clock.now().getTime() - SWEEP_AFTER_MS;
    const lapsed = owed.filter(({ run, report }) => !this.chains.has(run.id) && lastChangeOf(run, report) < before).map(({ run }) => run);
    for (const run of lapsed) {
      this.context.logger.info({ kind: 'run', runId: run.id, orgId: run.org_id }, 'run report: posting an outcome comment still owed');
      this.enqueue(run, () => this.comment(run));
    }
    return lapsed.length;
  }

  private enqueue(run: RunRecord, work: () => Promise<void>): void {
    const previous = this.chains.get(run.id) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((error: unknown) => {
        // The storage failed (the host's refusals are recorded on the run): the run is unaffected.
        this.context.logger.warn({ kind: 'run', runId: run.id, orgId: run.org_id, err: String(error) }, 'run report failed');
      })
      .finally(() => {
        if (this.chains.get(run.id) === next) this.chains.delete(run.id);
      });
    this.chains.set(run.id, next);
    this.context.runEvents.track(next);
  }

  /** `automation`: the run's, when the caller has it already. */
  private async reporting(run: RunRecord, known?: AutomationRecord): Promise<Reporting> {
    const automation = known ?? (await this.context.storage.automations.get(run.org_id, run.automation_id));
    if (!automation?.report_to_github || !run.delivery_id) return null;
    const delivery = await this.context.storage.deliveries.get(run.org_id, run.delivery_id);
    const host = delivery ? this.hosts.find((candidate) => candidate.handles(delivery.source)) : undefined;
    if (!delivery || !host) return null;
    let payload: unknown = null;
    try {
      payload = delivery.payload_json === null ? null : JSON.parse(delivery.payload_json);
    } catch {
      payload = null;
    }
    const found = host.threadOf(delivery.event_key, payload);
    if ('none' in found) return { automation, none: found.none };
    const settings = await this.options.settingsOf(automation.created_by);
    const channel = host.channel(found.thread, { userId: automation.created_by, settings });
    if ('none' in channel) return { automation, none: channel.none };
    // The comments are in the owner's language.
    return { automation, thread: found.thread, channel, language: settings.language };
  }

  /** The host's acknowledgement on what asked, then the run's one comment, "on it" with its link, which its outcome replaces. */
  private async react(run: RunRecord, automation: AutomationRecord): Promise<void> {
    const reporting = await this.reporting(run, automation);
    if (!reporting) return;
    let current = await this.context.storage.runReports.get(run.org_id, run.id);
    if ('none' in reporting) return this.write(run, { ...blank(current), error: reporting.none });
    const { thread, channel } = reporting;
    const target = thread.label;
    if (current?.reaction !== 'added') {
      try {
        await channel.acknowledge();
        await this.write(run, { ...blank(current), target, reaction: 'added', error: null });
        this.context.logger.info({ kind: 'run', runId: run.id, orgId: run.org_id, target, host: thread.host }, 'run reported: acknowledged');
      } catch (error) {
        await this.write(run, { ...blank(current), target, reaction: 'failed', error: refusal('the reaction', error) });
      }
      current = await this.context.storage.runReports.get(run.org_id, run.id);
    }
    if (current?.comment_id) return;
    let posted: PostedAnswer;
    try {
      posted = await this.postOrEdit(channel, run, current, onItComment(run, automation.name, this.options.runUrl(run), null, reporting.language));
      await this.write(run, { ...blank(current), target, comment_id: posted.id, comment_url: posted.url });
    } catch (error) {
      // The outcome is still owed: its comment is posted when the run ends, or by a sweep.
      await this.write(run, { ...blank(current), target, error: refusal('the "on it" comment', error) });
      return;
    }
    // The estimate follows "on it" (a model call takes seconds): the comment is edited to show it.
    const estimate = await this.estimateFor(automation, thread);
    if (estimate) {
      const stored = await this.context.storage.runReports.get(run.org_id, run.id);
      await this.postOrEdit(channel, run, stored, onItComment(run, automation.name, this.options.runUrl(run), estimate, reporting.language)).catch(() => {});
    }
  }

  /** The solvability estimate of the issue or pull request that asked, or `null` (not asked, or it failed: logged). */
  private async estimateFor(automation: AutomationRecord, thread: AnswerThread): Promise<SolvabilityEstimate | null> {
    if (!this.options.estimate || !thread.subject) return null;
    try {
      return await this.options.estimate(automation, { repository: thread.repository ?? thread.label, ...thread.subject });
    } catch (error) {
      this.context.logger.warn({ kind: 'run', automationId: automation.id, err: String(error) }, 'solvability estimate failed; "on it" goes without it');
      return null;
    }
  }

  /** The agent holds an action for approval: the thread is told what it will do and how to answer (a new comment, so people are notified). */
  private async askApproval(run: RunRecord, action: PendingAction): Promise<void> {
    const reporting = await this.reporting(run);
    if (!reporting || 'none' in reporting) return;
    const body = heldComment(run, reporting.automation.name, action, this.options.runUrl(run), reporting.language);
    try {
      const { channel } = reporting;
      const held = { runId: run.id, actionId: action.actionEventId, mention: reporting.automation.trigger.mention ?? null };
      await (channel.askApproval ? channel.askApproval(body, held) : channel.post(body));
    } catch (error) {
      const current = await this.context.storage.runReports.get(run.org_id, run.id);
      await this.write(run, { ...blank(current), error: refusal('the approval request', error) });
    }
  }

  /**
   * The run's comment with `body`: the one it posted (its id stored, or its marker found in the
   * thread) edited, else a new one.
   */
  private async postOrEdit(channel: AnswerChannel, run: RunRecord, current: RunReport | null, body: string): Promise<PostedAnswer> {
    if (current?.comment_id) {
      const edited = await channel.edit(current.comment_id, body);
      if (edited) return edited;
    }
    const earlier = await channel.find(runMarker(run.id), searchFrom(run.created_at));
    const edited = earlier ? await channel.edit(earlier.id, body) : null;
    return edited ?? channel.post(body);
  }

  private async comment(run: RunRecord): Promise<void> {
    const reporting = await this.reporting(run);
    const current = await this.context.storage.runReports.get(run.org_id, run.id);
    if (!reporting) {
      // Nothing to report (the automation stopped reporting, or was deleted): owed no more.
      if (current?.comment_due) await this.write(run, { ...blank(current), comment_due: false });
      return;
    }
    const stored = (await this.context.storage.runs.get(run.org_id, run.id)) ?? run;
    if ('none' in reporting) return this.write(run, { ...blank(current), error: reporting.none, comment_due: false });
    const { thread, automation } = reporting;
    const target = thread.label;
    const answer = stored.conversation_id ? await answerOf(this.context, stored.conversation_id, stored.id) : null;
    const body = outcomeComment(stored, automation.name, answer, this.options.runUrl(stored), reporting.language);
    try {
      const posted = await this.postOrEdit(reporting.channel, stored, current, body);
      await this.write(run, { ...blank(current), target, comment_id: posted.id, comment_url: posted.url, error: null, comment_due: false });
      this.context.logger.info({ kind: 'run', runId: run.id, orgId: run.org_id, target, host: thread.host }, 'run reported: outcome commented');
    } catch (error) {
      // The host down or unreachable: still owed, and a sweep asks again (for a day after the run ended).
      const again = transient(error) && Date.parse(stored.completed_at ?? stored.created_at) > this.context.clock.now().getTime() - RETRY_FOR_MS;
      const reason = refusal('the outcome comment', error) + (again ? ' (trying again in a few minutes)' : '');
      await this.write(run, { ...blank(current), target, error: reason, comment_due: again });
    }
  }

  private async write(run: RunRecord, report: Omit<RunReport, 'updated_at'>): Promise<void> {
    await this.context.storage.runReports.put(run.org_id, run.id, { ...report, updated_at: this.context.clock.now().toISOString() });
  }
}

/**
 * Comments updated from this time on are searched for the run's marker: before the run was
 * created, by a margin for GitHub's timestamps (whole seconds) and the clocks' skew.
 */
const SEARCH_MARGIN_MS = 10 * 60_000;
const searchFrom = (createdAt: string): string => new Date(Date.parse(createdAt) - SEARCH_MARGIN_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * How long after a run's last change a sweep takes on its owed comment: longer than a live
 * worker's comment can take (three GitHub calls of at most 15 s each), so the two never race.
 */
const SWEEP_AFTER_MS = 2 * 60_000;
/** How long after a run's end a comment GitHub could not take (down, unreachable) is tried again. */
const RETRY_FOR_MS = 24 * 60 * 60_000;
/** Owed comments one sweep takes on at most; the next sweep takes the rest. */
const SWEEP_BATCH = 50;

/** When the run last changed: its end, or its report's last write if later. */
function lastChangeOf(run: RunRecord, report: RunReport): number {
  const times = [run.completed_at, report.updated_at].filter((time): time is string => typeof time === 'string').map(Date.parse);
  return times.length > 0 ? Math.max(...times) : Date.parse(run.created_at);
}

/** Lines of a command agent's output a comment shows, from its end. */
const OUTPUT_LINES = 20;

/**
 * The agent's final response to this run, or else (a command agent) the end of its output. In a
 * thread's conversation, a follow-up run's answer is what came after the message it brought.
 */
async function answerOf(context: ServiceContext, conversationId: string, runId: string): Promise<RunAnswer> {
  const all = await readEventsFrom(context.storage, conversationId);
  const start = all.findLastIndex((event) => (event.data as { run_id?: unknown } | null)?.run_id === runId);
  const events = start < 0 ? all : all.slice(start);
  const response = finalResponseOf(events);
  if (response.trim()) return { response };
  const output = events.filter((event) => event.kind === 'agent_output').slice(-OUTPUT_LINES);
  return output.length > 0 ? { output: output.map((event) => event.message ?? '').join('\n') } : null;
}

/** The report so far, or an empty one. */
function blank(current: RunReport | null): Omit<RunReport, 'updated_at'> {
  return {
    target: current?.target ?? null,
    reaction: current?.reaction ?? null,
    comment_id: current?.comment_id ?? null,
    comment_url: current?.comment_url ?? null,
    error: current?.error ?? null,
    ...(current?.comment_due === undefined ? {} : { comment_due: current.comment_due }),
  };
}

/** The host down, overloaded or unreachable (no answer at all): worth asking again later; a refusal is not. */
function transient(error: unknown): boolean {
  return error instanceof HostError ? error.transient : true;
}

function refusal(what: string, error: unknown): string {
  return `${what} could not be posted: ${error instanceof Error ? error.message : String(error)}`;
}
