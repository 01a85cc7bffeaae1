/**
 * One step of the loop (OpenHands' `agent.step`): the follow-ups the user sent meanwhile, one
 * model call, then each tool call it asked for, in order, each in its `execute_tool` span. It
 * ends the run with an outcome, or returns null for the next step.
 * @module
 */
import type { AgentOutcome } from '@agent-platform/core';
import { messageEvent } from '../history/events.js';
import { stopped, type AgentRun } from '../run/agent-run.js';
import { callModelStep } from './call-model.js';
import { runToolCall } from './run-tool-call.js';

export async function takeStep(run: AgentRun): Promise<AgentOutcome | null> {
  if (run.stop.signal.aborted) return stopped(run);
  await takeFollowUps(run);
  const turn = await callModelStep(run);
  if (turn.type === 'end') return turn.outcome;
  // The finish tool ends the run once the step's other calls have run too.
  let finalResponse: string | null = null;
  for (const [index, call] of turn.step.calls.entries()) {
    const end = await run.telemetry.toolCall(call, () => runToolCall(run, turn, index));
    if (end.type === 'stopped') return stopped(run);
    if (end.type === 'finish') finalResponse = end.finalResponse;
  }
  return finalResponse === null ? null : { status: 'COMPLETED', reason: null, metrics: run.metrics.snapshot(), finalResponse };
}

/** Follow-ups the user sent while the agent worked (already stored: only taken into the history). */
async function takeFollowUps(run: AgentRun): Promise<void> {
  for (const message of (await run.input.pendingMessages?.()) ?? []) run.history.push({ ...messageEvent('user', message.text), id: message.id });
}
