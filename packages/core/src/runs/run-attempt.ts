/**
 * One attempt of a run, told in one direction: in the run's span, the attempt starts (the
 * automation loaded, `run.started` told), the earlier attempt is fenced, the plan is made, the
 * agent job runs and returns one result, and that result becomes the run's next state — its
 * final status, a retry after a backoff, or the run handed back. Every change goes through the
 * {@link HeldRun}, so a cancel made meanwhile wins and nothing is written over it.
 * @module
 */
import { runAgentJob, type AgentJobResult, type AgentJobServices } from '../agents/agent-job.js';
import { stopWork } from '../agents/stop-reason.js';
import type { ServiceContext } from '../kernel/context.js';
import type { AutomationRecord } from '../schemas/automation.js';
import { SandboxStartError } from '../sandboxes/stored-sandbox.js';
import { SandboxLostError } from '../sandboxes/lost-sandbox.js';
import { contextOf, inSpan, SpanKind } from '../telemetry/tracing.js';
import type { HeldRun } from './run-lifecycle.js';
import { fenceEarlierAttempt, planRunAttempt } from './run-plan.js';
import { keepThreadConversation } from './run-thread.js';
import type { RunApprovals } from './run-approvals.js';

export interface AttemptSettings {
  maxAttempts: number;
  /** Wait before the second attempt; doubled for each further one. */
  retryBackoffMs: number;
  /** Time limit for automations that set none, in seconds. */
  defaultTimeoutSeconds: number;
  /** Whether a failed attempt may still be retried here (not while the executor stops). */
  mayRetry(): boolean;
  /** Where the agent's actions held for approval wait for their answer. */
  approvals: RunApprovals;
}

/** What the executor does next: look for the run again after a backoff, or nothing. */
export type AttemptEnd = { retryAfterMs: number } | null;

/**
 * Executes one claimed attempt in its span (`agent_platform.run`), a child of the span that
 * created the run (its delivery's), whichever process that was; the agent's spans are its
 * children. `controller` is the executor's stop for this run (a cancel, a lost lease, a shutdown).
 */
export function runAttempt(
  context: ServiceContext,
  jobs: AgentJobServices,
  held: HeldRun,
  controller: AbortController,
  settings: AttemptSettings,
): Promise<AttemptEnd> {
  const { run } = held;
  const attributes: Record<string, string | number> = {
    'agent_platform.run.id': run.id,
    'agent_platform.automation.id': run.automation_id,
    'agent_platform.org.id': run.org_id,
    'agent_platform.run.attempt': run.attempt,
  };
  if (run.delivery_id) attributes['agent_platform.delivery.id'] = run.delivery_id;
  const parent = contextOf(run.trace_parent);
  return inSpan(context.telemetry.tracer, 'agent_platform.run', { parent, kind: SpanKind.CONSUMER, attributes }, async () => {
    const automation = await context.storage.automations.get(run.org_id, run.automation_id);
    await held.started(automation);
    if (!automation) {
      await held.finish({ status: 'SKIPPED', error_detail: 'the automation was deleted', completed_at: now(context) });
      return null;
    }
    if (await refusedByBudget(context, held, automation)) return null;
    return attempt(context, jobs, held, controller, settings, automation);
  });
}

/**
 * A run whose org, owner or automation has spent a budget does not start: SKIPPED with the cap
 * and the figures (FAILED when an earlier attempt had begun the work). True when so.
 */
async function refusedByBudget(context: ServiceContext, held: HeldRun, automation: AutomationRecord): Promise<boolean> {
  const { run } = held;
  const refusal = await context.spend.refusal({ orgId: run.org_id, userId: automation.created_by, automationId: automation.id });
  if (refusal === null) return false;
  const begun = run.conversation_id !== null;
  await held.finish({ status: begun ? 'FAILED' : 'SKIPPED', error_detail: `not started: ${refusal}`, completed_at: now(context) });
  return true;
}

/** The attempt of a run whose automation is there: its plan, its agent job, and what the job's result makes of the run. */
async function attempt(
  context: ServiceContext,
  jobs: AgentJobServices,
  held: HeldRun,
  controller: AbortController,
  settings: AttemptSettings,
  automation: AutomationRecord,
): Promise<AttemptEnd> {
  const { run } = held;
  let result: AgentJobResult;
  try {
    await fenceEarlierAttempt(context, jobs.runtime, run);
    const plan = await planRunAttempt(context, run, automation, timeoutOf(automation, settings));
    let conversationId: string | null = null;
    const confirm = settings.approvals.confirmFor(run, () => conversationId, controller.signal);
    result = await runAgentJob(
      jobs,
      { ...plan, agent: plan.agent && { ...plan.agent, confirm }, signal: controller.signal },
      {
        // Attached only while the run is still ours: a cancel that landed meanwhile wins, and the job stops.
        conversationOpened: async (conversation) => {
          conversationId = conversation.id;
          if (await held.attach(conversation.id, conversation.sandbox_id)) {
            await keepThreadConversation(context, run, conversation.id);
            return;
          }
          const current = await context.storage.runs.get(run.org_id, run.id).catch(() => null);
          stopWork(controller, current?.status === 'CANCELLED' ? 'cancelled' : 'lease-lost');
        },
      },
    );
  } catch (error) {
    // The storage failed before the job began or while its end was written.
    if (controller.signal.aborted) return stoppedEarly(held, controller);
    await held.finish({ status: 'FAILED', error_detail: error instanceof Error ? error.message : String(error), completed_at: now(context) });
    return null;
  }
  return settle(context, held, result, settings);
}

/** The job's result as the run's next state. */
async function settle(context: ServiceContext, held: HeldRun, result: AgentJobResult, settings: AttemptSettings): Promise<AttemptEnd> {
  const { run } = held;
  switch (result.status) {
    case 'completed':
      await held.finish({ status: 'COMPLETED', error_detail: null, completed_at: now(context), metrics: result.outcome.metrics ?? null });
      return null;
    case 'failed': {
      const reason = result.outcome.reason ?? `the agent ended ${result.outcome.status}`;
      // A sandbox that would not start may start on another attempt, and one lost with its host
      // (a Docker engine gone) is placed elsewhere; anything else would fail the same way again.
      const retryable = result.error instanceof SandboxStartError || result.error instanceof SandboxLostError;
      if (retryable && run.attempt < settings.maxAttempts && settings.mayRetry()) return retryLater(context, held, reason, settings);
      await held.finish({ status: 'FAILED', error_detail: reason, completed_at: now(context), metrics: result.outcome.metrics ?? null });
      return null;
    }
    case 'released':
      await handBack(held);
      return null;
    case 'cancelled':
      // Cancelled (its status written by whoever cancelled it) or taken over by another executor.
      held.lost(result.reason === 'cancelled');
      return null;
  }
}

/** A stop that came while the storage failed: handed back at shutdown, otherwise the run is someone else's now. */
async function stoppedEarly(held: HeldRun, controller: AbortController): Promise<AttemptEnd> {
  if (controller.signal.reason === 'shutdown') await handBack(held);
  else held.lost(controller.signal.reason === 'cancelled');
  return null;
}

/** The executor shuts down: the run goes back to PENDING for another to take at once, the attempt not counted. */
async function handBack(held: HeldRun): Promise<void> {
  await held.release({ error_detail: 'interrupted: its executor shut down', not_before: null, attempt: Math.max(0, held.run.attempt - 1) }, 'released');
}

/** Hands the run back for another attempt after a backoff, unless it was cancelled meanwhile. */
async function retryLater(context: ServiceContext, held: HeldRun, reason: string, settings: AttemptSettings): Promise<AttemptEnd> {
  const { attempt } = held.run;
  const backoff = settings.retryBackoffMs * 2 ** (attempt - 1);
  const notBefore = new Date(context.clock.now().getTime() + backoff).toISOString();
  const released = await held.release({ error_detail: `attempt ${attempt} failed: ${reason}`, not_before: notBefore, attempt }, 'retrying');
  return released ? { retryAfterMs: backoff } : null;
}

function timeoutOf(automation: AutomationRecord, settings: AttemptSettings): number {
  return automation.timeout_seconds ?? settings.defaultTimeoutSeconds;
}

const now = (context: ServiceContext): string => context.clock.now().toISOString();
