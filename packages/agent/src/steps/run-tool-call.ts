/**
 * One tool call's whole life: its rating by the owner's security analyzer, its action recorded,
 * its arguments checked, the user asked first (confirmation mode, for tools that change
 * something and, with an analyzer, are rated at or above the threshold), the tool run, and its
 * one answer recorded for the model: the observation (secrets scrubbed), or an error, or the rejection.
 * @module
 */
import type { SecurityContext, SecurityRating } from '@agent-platform/core';
import { redact } from '@agent-platform/core/adapter-kit';
import { actionEvent, agentErrorEvent, observationEvent, rejectionEvent, type HistoryEvent } from '../history/events.js';
import { remember, type AgentRun } from '../run/agent-run.js';
import { takeModelRisk } from '../security/model-risk.js';
import { rateCall, securityContext, waitsForUser } from '../security/run-security.js';
import type { AnyTool, ToolResult } from '../tools/tool.js';
import type { ModelReply } from './call-model.js';

/**
 * Why a call's answer is an error (its span's `error.type`): no such tool, arguments that do not
 * check, the tool threw, or its result says so (a command's non-zero exit, an MCP error, …).
 */
export type ToolErrorType = 'unknown_tool' | 'invalid_arguments' | 'tool_failed' | 'tool_error';

/**
 * How a call ended for its step: answered (an error answer says what kind), rejected by the user,
 * the task finished (the finish tool), or the run stopped during it.
 */
export type ToolCallEnd =
  | { type: 'answered'; error: ToolErrorType | null }
  | { type: 'rejected' }
  | { type: 'finish'; finalResponse: string }
  | { type: 'stopped' };

const ANSWERED: ToolCallEnd = { type: 'answered', error: null };
const ANSWERED_WITH_ERROR: ToolCallEnd = { type: 'answered', error: 'tool_error' };
const REJECTED: ToolCallEnd = { type: 'rejected' };
const STOPPED: ToolCallEnd = { type: 'stopped' };

/** Runs the `index`th tool call of the model's reply. */
export async function runToolCall(run: AgentRun, reply: ModelReply, index: number): Promise<ToolCallEnd> {
  if (run.stop.signal.aborted) return STOPPED;
  const { step, snapshot } = reply;
  const call = step.calls[index];
  if (call === undefined) throw new Error(`the model's reply has no tool call ${index}`);
  const tool = run.tools.get(call.toolName);
  // The arguments as the model wrote them: the action records them as they are (its own rating
  // of the call taken off, when it was asked for one), `prepare` checks them.
  const sent = call.input ?? {};
  const { args: input, modelRisk } = run.tools.asksRisk(call.toolName) ? takeModelRisk(sent) : { args: sent, modelRisk: null };
  const args = input as Record<string, unknown>;
  const prepared = tool?.prepare(args);
  // Rated before it is recorded: the action event carries its rating. A call that cannot run is not rated.
  const rating =
    tool && prepared?.ok
      ? await rateCall(run, { toolName: tool.name, actionKind: tool.actionKind, args, readOnly: tool.readOnly, modelRisk }, () => securityContextOf(run))
      : null;
  const action = actionEvent({
    thought: index === 0 ? step.text : '',
    reasoning: index === 0 && step.reasoning ? step.reasoning : null,
    actionKind: tool?.actionKind ?? 'UnknownAction',
    args,
    callArguments: sent,
    toolName: call.toolName,
    toolCallId: call.toolCallId,
    responseId: step.responseId,
    summary: prepared?.summary ?? `unknown tool ${call.toolName}`,
    metrics: index === step.calls.length - 1 ? snapshot : null,
    rating,
  });
  await remember(run, action);

  const answerError = async (error: string, type: ToolErrorType): Promise<ToolCallEnd> => {
    await remember(run, agentErrorEvent(call.toolName, call.toolCallId, error));
    return { type: 'answered', error: type };
  };
  if (!tool || !prepared) return answerError(`There is no tool named "${call.toolName}". Tools: ${run.tools.names.join(', ')}.`, 'unknown_tool');
  if (!prepared.ok) return answerError(prepared.error, 'invalid_arguments');
  if (!(await confirmed(run, tool, action, call.toolCallId, rating))) return REJECTED;

  let result: ToolResult;
  try {
    result = await prepared.run(run.toolContext);
  } catch (error) {
    if (run.stop.signal.aborted) return STOPPED;
    return answerError(`the tool failed: ${error instanceof Error ? error.message : String(error)}`, 'tool_failed');
  }
  if (run.stop.signal.aborted) return STOPPED;
  // Secret values never reach the model (a third party) or the stored events.
  const text = redact(result.text, run.secrets);
  await remember(
    run,
    observationEvent({
      observationKind: tool.observationKind,
      toolName: tool.name,
      toolCallId: call.toolCallId,
      actionId: action.id,
      text,
      isError: result.isError,
      ...(result.observation ? { extra: result.observation } : {}),
    }),
  );
  if (result.finish) return { type: 'finish', finalResponse: text };
  return result.isError ? ANSWERED_WITH_ERROR : ANSWERED;
}

/**
 * In confirmation mode, the user's decision on a tool that changes something — every such call
 * without a security analyzer, else those rated at or above the threshold (and unrated ones); a
 * rejection is recorded as the call's answer.
 */
async function confirmed(run: AgentRun, tool: AnyTool, action: HistoryEvent, toolCallId: string, rating: SecurityRating | null): Promise<boolean> {
  const { confirm } = run.input;
  if (!run.settings.confirmationMode || !confirm || tool.readOnly || !waitsForUser(run.security, rating)) return true;
  const decision = await confirm({
    actionEventId: action.id,
    toolName: tool.name,
    summary: action.event.message,
    ...(rating ? { securityRisk: rating.risk, securityReason: rating.reason } : {}),
  });
  if (decision.accept) return true;
  await remember(run, rejectionEvent(tool.name, toolCallId, action.id, decision.reason));
  return false;
}

/** What the run tells its security analyzer of itself, made at the first rating and kept for the run. */
const contexts = new WeakMap<AgentRun, SecurityContext>();
function securityContextOf(run: AgentRun): SecurityContext {
  let context = contexts.get(run);
  if (!context) {
    context = securityContext(run.settings, run.toolContext);
    contexts.set(run, context);
  }
  return context;
}
