/**
 * `createLlmAgentRunner`: the built-in agent (DESIGN §12). The loop runs here, in the platform
 * process: it calls the owner's model with the history and the tools, records each tool call
 * as an OpenHands `ActionEvent`, runs it — in the sandbox (terminal, file editor, stdio MCP
 * servers), on an MCP server, or on the platform — and records the `ObservationEvent`, until the
 * model calls `finish`, answers without a tool, or a limit stops it: `max_iterations`,
 * `max_budget_per_task`, the run's time limit, a cancel.
 * @module
 */
import type { AgentEvent, AgentOutcome, AgentRunInput, AgentRunner, MetricsSnapshot } from '@agent-platform/core';
import { agentNoteDraft, redact, secretValuesOf } from '@agent-platform/core';
import type { JSONSchema7, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { commandEnvironment } from './command-env.js';
import { eventsToForget, shouldCondense, summarize, type CondenserOptions } from './condenser.js';
import {
  actionEvent,
  agentErrorEvent,
  condensationEvent,
  messageEvent,
  observationEvent,
  record,
  rejectionEvent,
  type HistoryEvent,
} from './events.js';
import { fromStoredEvents, toModelMessages, visibleEvents } from './history.js';
import { connectMcpServers, type McpToolset } from './mcp/index.js';
import { MetricsTracker } from './metrics.js';
import { callModel, type ModelStep } from './model-call.js';
import { ModelConfigError, resolveModel, type ResolvedModel } from './model.js';
import { firstMessage, systemPrompt } from './prompt.js';
import { describeModelError } from './provider-errors.js';
import { fileEditorTool } from './tools/file-editor.js';
import { mcpAgentTool } from './tools/mcp-tools.js';
import { platformTools } from './tools/platform.js';
import { terminalTool, type TerminalOptions } from './tools/terminal.js';
import { finishTool, thinkTool } from './tools/think-finish.js';
import type { AgentTool, ToolContext } from './tools/tool.js';

export interface LlmAgentRunnerOptions {
  /** Steps (model calls) when the owner set no `max_iterations`. Default 100. */
  defaultMaxIterations?: number;
  /** Retries of a model call on 408/409/429/5xx and network errors, with exponential backoff. Default 4. */
  maxRetries?: number;
  /** The terminal tool's limits. */
  terminal?: TerminalOptions;
  /** When the condenser summarises (if the owner has it on). */
  condenser?: CondenserOptions;
  /** `fetch` for the model calls (proxies, tests). */
  fetch?: typeof globalThis.fetch;
  /** Time limit when the run gives none. Default 30 minutes. */
  defaultTimeoutMs?: number;
  /** MCP connection limits. */
  mcp?: { connectTimeoutMs?: number; callTimeoutMs?: number };
}

/** Why the loop stopped early, as the abort reason of its signal. */
type StopCause = 'cancelled' | 'timeout';

export function createLlmAgentRunner(options: LlmAgentRunnerOptions = {}): AgentRunner {
  return { run: (input) => runAgent(input, options) };
}

async function* runAgent(input: AgentRunInput, options: LlmAgentRunnerOptions): AsyncIterable<AgentEvent> {
  const finished = (outcome: AgentOutcome): AgentEvent => ({ type: 'finished', outcome });
  const { settings } = input;
  if (!settings.llmModel) {
    yield finished({ status: 'FAILED', reason: 'the built-in agent needs an llm_model in the owner\'s settings' });
    return;
  }
  let model: ResolvedModel;
  try {
    model = resolveModel({ llmModel: settings.llmModel, llmApiKey: settings.llmApiKey, llmBaseUrl: settings.llmBaseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  } catch (error) {
    if (error instanceof ModelConfigError) {
      yield finished({ status: 'FAILED', reason: error.message });
      return;
    }
    throw error;
  }

  const secrets = secretValuesOf(settings);
  const stop = new AbortController();
  const onAbort = () => stop.abort('cancelled' satisfies StopCause);
  if (input.signal?.aborted) onAbort();
  input.signal?.addEventListener('abort', onAbort, { once: true });
  const timeoutMs = input.timeoutMs ?? options.defaultTimeoutMs ?? 30 * 60_000;
  const timer = setTimeout(() => stop.abort('timeout' satisfies StopCause), timeoutMs);
  timer.unref?.();
  const metrics = new MetricsTracker(model, settings.maxBudgetPerTask);
  const stopped = (): AgentOutcome => ({
    status: stop.signal.reason === 'timeout' ? 'TIMED_OUT' : 'CANCELLED',
    reason: stop.signal.reason === 'timeout' ? `timed out after ${Math.round(timeoutMs / 1000)} s` : 'cancelled',
    metrics: metrics.snapshot(),
  });

  let mcp: McpToolset | null = null;
  try {
    const workingDir = (await input.runtime.inspect(input.sandboxId)).workingDir;
    mcp = await connectMcpServers(settings.mcpConfig, {
      runtime: input.runtime,
      sandboxId: input.sandboxId,
      signal: stop.signal,
      ...(options.mcp?.connectTimeoutMs ? { connectTimeoutMs: options.mcp.connectTimeoutMs } : {}),
      ...(options.mcp?.callTimeoutMs ? { callTimeoutMs: options.mcp.callTimeoutMs } : {}),
    });
    for (const failure of mcp.failures) yield { type: 'record', event: agentNoteDraft({ type: 'mcp_server_unavailable', server: failure.server, error: failure.error }) };

    const tools = new Map<string, AgentTool<any>>();
    const builtIn: AgentTool<any>[] = [terminalTool(options.terminal), fileEditorTool(), thinkTool(), finishTool()];
    for (const tool of [...builtIn, ...(input.platformTools ? platformTools() : []), ...mcp.tools.map(mcpAgentTool)]) {
      if (!tools.has(tool.name)) tools.set(tool.name, tool);
    }
    const wireTools: LanguageModelV3FunctionTool[] = [...tools.values()].map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      inputSchema: wireSchema(tool.inputSchema),
    }));
    const context: ToolContext = {
      runtime: input.runtime,
      sandboxId: input.sandboxId,
      workingDir,
      env: commandEnvironment(input),
      signal: stop.signal,
      ...(input.platformTools ? { platform: input.platformTools } : {}),
    };
    const system = systemPrompt(workingDir, [...tools.keys()]);

    const history: HistoryEvent[] = input.history?.length ? fromStoredEvents(input.history) : [];
    if (history.length === 0) history.push(messageEvent('user', firstMessage(input)));
    const maxIterations = settings.maxIterations ?? options.defaultMaxIterations ?? 100;
    const maxRetries = options.maxRetries ?? 4;
    if (settings.maxBudgetPerTask !== null && !metrics.costKnown) {
      yield { type: 'record', event: agentNoteDraft({ type: 'budget_not_enforced', reason: `no price is known for ${model.name}` }) };
    }

    for (let iteration = 1; iteration <= maxIterations; iteration++) {
      if (stop.signal.aborted) return yield finished(stopped());
      // Follow-ups the user sent while the agent worked (already stored: only taken into the history).
      for (const message of (await input.pendingMessages?.()) ?? []) history.push({ ...messageEvent('user', message.text), id: message.id });

      if (settings.enableDefaultCondenser && shouldCondense(history, metrics.lastPromptTokens, metrics.contextWindow, options.condenser ?? {})) {
        const forgottenIds = eventsToForget(history);
        const forgotten = visibleEvents(history).filter((entry) => forgottenIds.includes(entry.id));
        try {
          const { summary, usage } = await summarize(model.model, forgotten, { ...options.condenser, signal: stop.signal, maxRetries });
          metrics.add(usage);
          const condensation = condensationEvent(forgottenIds, summary, 1);
          history.push(condensation);
          yield record(condensation);
          yield { type: 'metrics', metrics: metrics.snapshot() };
        } catch (error) {
          if (stop.signal.aborted) return yield finished(stopped());
          yield { type: 'record', event: agentNoteDraft({ type: 'condensation_failed', error: describeModelError(error, model.name, secrets) }) };
        }
      }

      let step: ModelStep;
      try {
        step = await callModel({
          model: model.model,
          prompt: [{ role: 'system', content: system }, ...toModelMessages(history)],
          tools: wireTools,
          signal: stop.signal,
          maxRetries,
        });
        if (!step.responseId) step.responseId = `resp_${randomUUID()}`;
      } catch (error) {
        if (stop.signal.aborted) return yield finished(stopped());
        yield finished({ status: 'FAILED', reason: describeModelError(error, model.name, secrets), metrics: metrics.snapshot() });
        return;
      }
      metrics.add(step.usage);
      const snapshot = metrics.snapshot();
      yield { type: 'metrics', metrics: snapshot };

      if (step.calls.length === 0) {
        // An answer without a tool call: the agent is done, and that answer is its final word.
        const answer = messageEvent('agent', step.text);
        history.push(answer);
        yield record(answer);
        yield finished({ status: 'COMPLETED', reason: null, metrics: snapshot, finalResponse: step.text });
        return;
      }
      if (metrics.overBudget()) {
        yield finished({ status: 'FAILED', reason: budgetReason(snapshot), metrics: snapshot });
        return;
      }

      let finalResponse: string | null = null;
      for (const [index, call] of step.calls.entries()) {
        if (stop.signal.aborted) return yield finished(stopped());
        const tool = tools.get(call.toolName);
        const args = (call.input ?? {}) as Record<string, unknown>;
        const action = actionEvent({
          thought: index === 0 ? step.text : '',
          reasoning: index === 0 && step.reasoning ? step.reasoning : null,
          actionKind: tool?.actionKind ?? 'UnknownAction',
          args,
          toolName: call.toolName,
          toolCallId: call.toolCallId,
          responseId: step.responseId,
          summary: tool ? safeSummary(tool, args) : `unknown tool ${call.toolName}`,
          metrics: index === step.calls.length - 1 ? snapshot : null,
        });
        history.push(action);
        yield record(action);

        if (!tool) {
          const error = agentErrorEvent(call.toolName, call.toolCallId, `There is no tool named "${call.toolName}". Tools: ${[...tools.keys()].join(', ')}.`);
          history.push(error);
          yield record(error);
          continue;
        }
        const parsed = tool.parse(args);
        if (!parsed.ok) {
          const error = agentErrorEvent(call.toolName, call.toolCallId, parsed.error);
          history.push(error);
          yield record(error);
          continue;
        }
        if (settings.confirmationMode && input.confirm && !tool.readOnly) {
          const decision = await input.confirm({ actionEventId: action.id, toolName: tool.name, summary: action.event.message });
          if (!decision.accept) {
            const rejection = rejectionEvent(tool.name, call.toolCallId, action.id, decision.reason);
            history.push(rejection);
            yield record(rejection);
            continue;
          }
        }
        let result;
        try {
          result = await tool.execute(parsed.args, context);
        } catch (error) {
          if (stop.signal.aborted) return yield finished(stopped());
          const failure = agentErrorEvent(tool.name, call.toolCallId, `the tool failed: ${error instanceof Error ? error.message : String(error)}`);
          history.push(failure);
          yield record(failure);
          continue;
        }
        if (stop.signal.aborted) return yield finished(stopped());
        const observation = observationEvent({
          observationKind: tool.observationKind,
          toolName: tool.name,
          toolCallId: call.toolCallId,
          actionId: action.id,
          // Secret values never reach the model (a third party) or the stored events.
          text: redact(result.text, secrets),
          isError: result.isError,
          ...(result.observation ? { extra: result.observation } : {}),
        });
        history.push(observation);
        yield record(observation);
        if (result.finish) finalResponse = redact(result.text, secrets);
      }
      if (finalResponse !== null) {
        yield finished({ status: 'COMPLETED', reason: null, metrics: metrics.snapshot(), finalResponse });
        return;
      }
    }
    yield finished({ status: 'FAILED', reason: `max iterations reached (${maxIterations})`, metrics: metrics.snapshot() });
  } finally {
    clearTimeout(timer);
    input.signal?.removeEventListener('abort', onAbort);
    await mcp?.close().catch(() => {});
  }
}

/**
 * A tool's schema as JSON Schema for the provider, converted once per schema (a conversion costs
 * milliseconds, against DESIGN §17's per-step bar). Arguments are checked by the tool's own
 * `parse` when the model calls it.
 */
const converted = new WeakMap<object, JSONSchema7>();
function wireSchema(schema: z.ZodType | JSONSchema7): JSONSchema7 {
  if (!(schema instanceof z.ZodType)) return schema;
  let json = converted.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JSONSchema7;
    converted.set(schema, json);
  }
  return json;
}

function budgetReason(snapshot: MetricsSnapshot): string {
  return `budget exceeded: $${snapshot.accumulated_cost.toFixed(4)} spent of max_budget_per_task $${snapshot.max_budget_per_task}`;
}

function safeSummary(tool: AgentTool<any>, args: Record<string, unknown>): string {
  try {
    return tool.summarize(args);
  } catch {
    return tool.name;
  }
}
