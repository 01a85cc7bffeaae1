/**
 * One model call of a step: the history condensed if it needs it, the model called with it and
 * the tools (in its `chat` span), the usage counted and reported. An answer without a tool call
 * ends the run (it is recorded as the agent's message and is its final word), and so does a
 * spent budget — the task's (`max_budget_per_task`), or one of the org's, the owner's or the
 * automation's (asked before the call, so a spent cap costs nothing more); otherwise the step goes
 * on with the tool calls.
 * @module
 */
import type { AgentOutcome, MetricsSnapshot } from '@agent-platform/core';
import { randomUUID } from 'node:crypto';
import { messageEvent } from '../history/events.js';
import { toModelMessages } from '../history/history.js';
import { callModel, type ModelStep } from '../model/model-call.js';
import { describeModelError } from '../model/provider-errors.js';
import { remember, stopped, type AgentRun } from '../run/agent-run.js';
import { condenseIfNeeded } from './condense.js';

/** The model's reply with tool calls to run, and the metrics after it. */
export interface ModelReply {
  step: ModelStep;
  snapshot: MetricsSnapshot;
}

export type ModelTurn = ({ type: 'calls' } & ModelReply) | { type: 'end'; outcome: AgentOutcome };

const end = (outcome: AgentOutcome): ModelTurn => ({ type: 'end', outcome });

export async function callModelStep(run: AgentRun): Promise<ModelTurn> {
  const refused = await spendRefused(run);
  if (refused) return end(refused);
  const condensing = await condenseIfNeeded(run);
  if (condensing === 'stopped') return end(stopped(run));
  // The summary was a model call of its own: it may have spent what was left.
  const refusedAfterSummary = condensing === 'condensed' ? await spendRefused(run) : null;
  if (refusedAfterSummary) return end(refusedAfterSummary);
  const { model, metrics } = run;
  let step: ModelStep;
  try {
    step = await run.telemetry.chat(
      { model, purpose: 'step', signal: run.stop.signal },
      () =>
        callModel({
          model: model.model,
          prompt: [{ role: 'system', content: run.systemPrompt }, ...toModelMessages(run.history)],
          tools: run.tools.wire,
          signal: run.stop.signal,
          maxRetries: run.maxRetries,
        }),
      (reply) => metrics.add(reply.usage),
    );
  } catch (error) {
    if (run.stop.signal.aborted) return end(stopped(run));
    return end({ status: 'FAILED', reason: describeModelError(error, model.name, run.secrets), metrics: metrics.snapshot() });
  }
  if (!step.responseId) step.responseId = `resp_${randomUUID()}`;
  const snapshot = metrics.snapshot();
  await run.sink.metrics(snapshot);

  if (step.calls.length === 0) {
    // An answer without a tool call: the agent is done, and that answer is its final word.
    await remember(run, messageEvent('agent', step.text));
    return end({ status: 'COMPLETED', reason: null, metrics: snapshot, finalResponse: step.text });
  }
  if (metrics.overBudget()) return end({ status: 'FAILED', reason: budgetReason(snapshot), metrics: snapshot });
  return { type: 'calls', step, snapshot };
}

/** The outcome of a run a spent budget of its org, owner or automation stops, or `null` to go on. */
async function spendRefused(run: AgentRun): Promise<AgentOutcome | null> {
  const snapshot = run.metrics.snapshot();
  const refusal = await run.input.spendCheck?.(snapshot);
  return refusal ? { status: 'FAILED', reason: refusal, metrics: snapshot } : null;
}

function budgetReason(snapshot: MetricsSnapshot): string {
  return `budget exceeded: $${snapshot.accumulated_cost.toFixed(4)} spent of max_budget_per_task $${snapshot.max_budget_per_task}`;
}
