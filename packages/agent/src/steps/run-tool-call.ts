/**
 * One tool call's whole life: its action recorded, its arguments checked, the user asked first
 * (confirmation mode, for tools that change something), the tool run, and its one answer
 * recorded for the model: the observation (secrets scrubbed), or an error, or the rejection.
 * @module
 */
import { redact } from '@agent-platform/core/adapter-kit';
import { actionEvent, agentErrorEvent, observationEvent, rejectionEvent, type HistoryEvent } from '../history/events.js';
import { remember, type AgentRun } from '../run/agent-run.js';
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
  // The arguments as the model wrote them: the action records them as they are, `prepare` checks them.
  const args = (call.input ?? {}) as Record<string, unknown>;
  const prepared = tool?.prepare(args);
  const action = actionEvent({
    thought: index === 0 ? step.text : '',
    reasoning: index === 0 && step.reasoning ? step.reasoning : null,
    actionKind: tool?.actionKind ?? 'UnknownAction',
    args,
    toolName: call.toolName,
    toolCallId: call.toolCallId,
    responseId: step.responseId,
    summary: prepared?.summary ?? `unknown tool ${call.toolName}`,
    metrics: index === step.calls.length - 1 ? snapshot : null,
  });
  await remember(run, action);

  const answerError = async (error: string, type: ToolErrorType): Promise<ToolCallEnd> => {
    await remember(run, agentErrorEvent(call.toolName, call.toolCallId, error));
    return { type: 'answered', error: type };
  };
  if (!tool || !prepared) return answerError(`There is no tool named "${call.toolName}". Tools: ${run.tools.names.join(', ')}.`, 'unknown_tool');
  if (!prepared.ok) return answerError(prepared.error, 'invalid_arguments');
  if (!(await confirmed(run, tool, action, call.toolCallId))) return REJECTED;

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

/** In confirmation mode, the user's decision on a tool that changes something; a rejection is recorded as the call's answer. */
async function confirmed(run: AgentRun, tool: AnyTool, action: HistoryEvent, toolCallId: string): Promise<boolean> {
  const { confirm } = run.input;
  if (!run.settings.confirmationMode || !confirm || tool.readOnly) return true;
  const decision = await confirm({ actionEventId: action.id, toolName: tool.name, summary: action.event.message });
  if (decision.accept) return true;
  await remember(run, rejectionEvent(tool.name, toolCallId, action.id, decision.reason));
  return false;
}
