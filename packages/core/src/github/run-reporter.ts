/**
 * The answer on GitHub, for runs of automations with `report_to_github`, from the run events:
 * when an attempt starts (`run.started`), a 👀 reaction on the comment, issue or pull request
 * whose event started the run; when the run ends (`run.finished`) — whichever process ended it:
 * the executor, a cancel over the API, flow control, the recovery of a dead worker's run — one
 * comment in that thread with the outcome and a link to the run (edited, not posted again, by a
 * later report of the same run). With the automation owner's GitHub token and host. What was
 * reported, or why it could not be (no token, GitHub refused), is the run's report, this
 * feature's own record (`storage.runReports`); a report never changes a run's status and never
 * holds the token.
 *
 * Reports run in the background, one after another per run (a run's comment never overtakes its
 * reaction); the run event bus's `idle()` waits for those under way. The comment is owed from the
 * attempt's start (`comment_due`, written before the agent runs) until it is posted or found
 * impossible; a worker killed in between leaves it owed, and any process's sweep
 * ({@link GitHubRunReporter.sweep}, from `start()` on, every minute) posts it later — at most
 * once per run, its marker found.
 * @module
 */
import type { ServiceContext } from '../kernel/context.js';
import type { RunEventBus } from '../kernel/run-event-bus.js';
import type { AgentSettings, PendingAction } from '../ports/agent-runner.js';
import type { SolvabilityEstimate } from '../ports/solvability.js';
import type { AutomationRecord } from '../schemas/automation.js';
import type { RunRecord, RunReport } from '../schemas/run.js';
import { FINAL_RUN_STATUSES, GITHUB_SOURCE } from '../schemas/vocabulary.js';
import { finalResponseOf, readEventsFrom } from '../storage/conversation-log.js';
import { eventThread, type EventThread } from './event-thread.js';
import { createGitHubApi, GitHubError, repositoryOf, type GitHubApi, type GitHubComment } from './github-api.js';
import { heldComment, onItComment, outcomeComment, runMarker, type RunAnswer } from './outcome-comment.js';

export interface GitHubRunReporterOptions {
  /** The owner's settings, decrypted (their GitHub token and host). */
  settingsOf(userId: string): Promise<AgentSettings>;
  /** Where a person sees the run, linked from the comment; `null` for no link. */
  runUrl(run: RunRecord): string | null;
  /** The GitHub API for a token and host. Default: `@octokit/rest`. */
  apiFor?(token: string, host: string | null): GitHubApi;
  /**
   * How likely the agent is to solve the issue (`null`: not asked — the owner turned
   * `enable_solvability_analysis` off, or no estimator is configured); shown in "on it".
   */
  estimate?(automation: AutomationRecord, issue: { repository: string; title: string; body: string }): Promise<SolvabilityEstimate | null>;
}

/** A run's reporting context: its automation, thread and API, or why it reports nothing. */
type Reporting =
  | { automation: AutomationRecord; thread: EventThread; api: GitHubApi; payload: unknown }
  | { automation: AutomationRecord; none: string }
  | null;

/** How often a process asks for outcome comments owed by workers that died. */
const SWEEP_EVERY_MS = 60_000;

export class GitHubRunReporter {
  /** The report under way per run, each one chained after the one before it. */
  private readonly chains = new Map<string, Promise<void>>();
  private sweepTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly context: ServiceContext,
    private readonly options: GitHubRunReporterOptions,
  ) {}

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
        this.context.logger.warn(
          { kind: 'run', runId: run.id, orgId: run.org_id, err: String(error) },
          'run report to GitHub: could not record the comment as owed',
        );
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
      this.context.logger.info({ kind: 'run', runId: run.id, orgId: run.org_id }, 'run report to GitHub: posting an outcome comment still owed');
      this.enqueue(run, () => this.comment(run));
    }
    return lapsed.length;
  }

  private enqueue(run: RunRecord, work: () => Promise<void>): void {
    const previous = this.chains.get(run.id) ?? Promise.resolve();
    const next = previous
      .then(work)
      .catch((error: unknown) => {
        // The storage failed (GitHub's refusals are recorded on the run): the run is unaffected.
        this.context.logger.warn({ kind: 'run', runId: run.id, orgId: run.org_id, err: String(error) }, 'run report to GitHub failed');
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
    if (!delivery || delivery.source !== GITHUB_SOURCE) return null;
    let payload: unknown = null;
    try {
      payload = delivery.payload_json === null ? null : JSON.parse(delivery.payload_json);
    } catch {
      payload = null;
    }
    const found = eventThread(delivery.event_key, payload);
    if ('none' in found) return { automation, none: found.none };
    const github = (await this.options.settingsOf(automation.created_by)).providerTokens.github;
    if (!github?.token)
      return { automation, none: `no GitHub token is stored for the automation's owner (${automation.created_by}); store one in their settings` };
    const apiFor = this.options.apiFor ?? createGitHubApi;
    try {
      return { automation, thread: found.thread, api: apiFor(github.token, github.host), payload };
    } catch (error) {
      return { automation, none: error instanceof Error ? error.message : String(error) };
    }
  }

  /** 👀 on what asked, then the run's one comment, "on it" with its link, which its outcome replaces. */
  private async react(run: RunRecord, automation: AutomationRecord): Promise<void> {
    const reporting = await this.reporting(run, automation);
    if (!reporting) return;
    let current = await this.context.storage.runReports.get(run.org_id, run.id);
    if ('none' in reporting) return this.write(run, { ...blank(current), error: reporting.none });
    const { thread, api } = reporting;
    const target = `${thread.repository}#${thread.number}`;
    if (current?.reaction !== 'added') {
      try {
        await api.addReaction(repositoryOf(thread.repository), thread.reactTo, 'eyes');
        await this.write(run, { ...blank(current), target, reaction: 'added', error: null });
        this.context.logger.info({ kind: 'run', runId: run.id, orgId: run.org_id, target }, 'run reported to GitHub: reaction added');
      } catch (error) {
        await this.write(run, { ...blank(current), target, reaction: 'failed', error: refusal('the reaction', error) });
      }
      current = await this.context.storage.runReports.get(run.org_id, run.id);
    }
    if (current?.comment_id) return;
    let posted: GitHubComment;
    try {
      posted = await this.postOrEdit(reporting, run, current, onItComment(run, automation.name, this.options.runUrl(run), null));
      await this.write(run, { ...blank(current), target, comment_id: posted.id, comment_url: posted.url });
    } catch (error) {
      // The outcome is still owed: its comment is posted when the run ends, or by a sweep.
      await this.write(run, { ...blank(current), target, error: refusal('the "on it" comment', error) });
      return;
    }
    // The estimate follows "on it" (a model call takes seconds): the comment is edited to show it.
    const estimate = await this.estimateFor(automation, thread, reporting.payload);
    if (estimate) {
      const stored = await this.context.storage.runReports.get(run.org_id, run.id);
      await this.postOrEdit(reporting, run, stored, onItComment(run, automation.name, this.options.runUrl(run), estimate)).catch(() => {});
    }
  }

  /** The solvability estimate of the issue or pull request that asked, or `null` (not asked, or it failed: logged). */
  private async estimateFor(automation: AutomationRecord, thread: EventThread, payload: unknown): Promise<SolvabilityEstimate | null> {
    if (!this.options.estimate) return null;
    const item = (payload as { issue?: { title?: unknown; body?: unknown }; pull_request?: { title?: unknown; body?: unknown } } | null) ?? {};
    const asked = item.issue ?? item.pull_request;
    if (typeof asked?.title !== 'string') return null;
    try {
      return await this.options.estimate(automation, {
        repository: thread.repository,
        title: asked.title,
        body: typeof asked.body === 'string' ? asked.body : '',
      });
    } catch (error) {
      this.context.logger.warn({ kind: 'run', automationId: automation.id, err: String(error) }, 'solvability estimate failed; "on it" goes without it');
      return null;
    }
  }

  /** The agent holds an action for approval: the thread is told what it will do and how to answer (a new comment, so people are notified). */
  private async askApproval(run: RunRecord, action: PendingAction): Promise<void> {
    const reporting = await this.reporting(run);
    if (!reporting || 'none' in reporting) return;
    const { thread, api, automation } = reporting;
    const repository = repositoryOf(thread.repository);
    const body = heldComment(run, automation.name, action, this.options.runUrl(run));
    try {
      if (thread.reactTo.kind === 'review_comment') await api.createReviewReply(repository, thread.number, thread.reactTo.id, body);
      else await api.createComment(repository, thread.number, body);
    } catch (error) {
      const current = await this.context.storage.runReports.get(run.org_id, run.id);
      await this.write(run, { ...blank(current), error: refusal('the approval request', error) });
    }
  }

  /**
   * The run's comment with `body`: the one it posted (its id stored, or in an issue's thread its
   * marker found) edited, else a new one — a reply in the review thread for a review comment.
   */
  private async postOrEdit(
    reporting: { thread: EventThread; api: GitHubApi },
    run: RunRecord,
    current: RunReport | null,
    body: string,
  ): Promise<GitHubComment> {
    const { thread, api } = reporting;
    const repository = repositoryOf(thread.repository);
    const review = thread.reactTo.kind === 'review_comment' ? thread.reactTo.id : null;
    if (current?.comment_id) {
      const edited = review
        ? await api.updateReviewComment(repository, current.comment_id, body)
        : await api.updateComment(repository, current.comment_id, body);
      if (edited) return edited;
    }
    if (review) return api.createReviewReply(repository, thread.number, review, body);
    const earlier = await api.findComment(repository, thread.number, runMarker(run.id), searchFrom(run.created_at));
    const edited = earlier ? await api.updateComment(repository, earlier.id, body) : null;
    return edited ?? api.createComment(repository, thread.number, body);
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
    const target = `${thread.repository}#${thread.number}`;
    const answer = stored.conversation_id ? await answerOf(this.context, stored.conversation_id, stored.id) : null;
    const body = outcomeComment(stored, automation.name, answer, this.options.runUrl(stored));
    try {
      const posted = await this.postOrEdit(reporting, stored, current, body);
      await this.write(run, { ...blank(current), target, comment_id: posted.id, comment_url: posted.url, error: null, comment_due: false });
      this.context.logger.info({ kind: 'run', runId: run.id, orgId: run.org_id, target }, 'run reported to GitHub: outcome commented');
    } catch (error) {
      // GitHub down or unreachable: still owed, and a sweep asks again (for a day after the run ended).
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

/** GitHub down, overloaded or unreachable (no answer at all): worth asking again later; a refusal is not. */
function transient(error: unknown): boolean {
  const status = error instanceof GitHubError ? error.status : null;
  return status === null || status === 429 || status >= 500;
}

function refusal(what: string, error: unknown): string {
  return `${what} could not be posted: ${error instanceof GitHubError ? error.message : error instanceof Error ? error.message : String(error)}`;
}
