/**
 * A run's setup, before its first step: the owner's model, the stop signal (cancel, time limit),
 * the MCP servers connected (those that fail are noted and left out), the tools, the system
 * prompt and the history: the stored conversation, or the task as the first message.
 * @module
 */
import type { AgentOutcome, AgentRunInput } from '@agent-platform/core';
import { secretValuesOf } from '@agent-platform/core/adapter-kit';
import { messageEvent, type HistoryEvent } from '../history/events.js';
import { fromStoredEvents } from '../history/history.js';
import { connectMcpServers, type McpToolset } from '../mcp/index.js';
import { MetricsTracker } from '../model/metrics.js';
import { ModelConfigError, resolveModel, type ResolvedModel } from '../model/model.js';
import type { EventSink } from '../sink/event-sink.js';
import type { RunTelemetry } from '../telemetry/run-telemetry.js';
import { fileEditorTool } from '../tools/file-editor.js';
import { hostPort, hostTools } from '../tools/host-tools.js';
import { mcpAgentTool } from '../tools/mcp-tools.js';
import { platformTools } from '../tools/platform.js';
import { readOnlySandboxTools } from '../tools/read-only.js';
import { terminalTool } from '../tools/terminal.js';
import { finishTool, thinkTool } from '../tools/think-finish.js';
import { toolbox, withRiskArguments } from '../tools/toolbox.js';
import { runSecurity, withRiskAssessment } from '../security/run-security.js';
import { webSearchTool } from '../tools/web-search.js';
import type { AgentRun } from './agent-run.js';
import { commandEnvironment } from './command-env.js';
import type { LlmAgentRunnerOptions } from './options.js';
import { firstMessage, systemPrompt } from './prompt.js';
import { startStop } from './stop.js';

/** A run ready for its steps, with what releases what it holds; or the outcome of one that cannot start. */
export type PreparedRun = { run: AgentRun; release(): Promise<void> } | { outcome: AgentOutcome };

export async function prepareRun(input: AgentRunInput, options: LlmAgentRunnerOptions, telemetry: RunTelemetry, sink: EventSink): Promise<PreparedRun> {
  const { settings } = input;
  const readOnly = options.toolset === 'read-only';
  if (!settings.llmModel) return { outcome: { status: 'FAILED', reason: "the built-in agent needs an llm_model in the owner's settings" } };
  let model: ResolvedModel;
  try {
    model = resolveModel({
      llmModel: settings.llmModel,
      llmApiKey: settings.llmApiKey,
      llmBaseUrl: settings.llmBaseUrl,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  } catch (error) {
    if (error instanceof ModelConfigError) return { outcome: { status: 'FAILED', reason: error.message } };
    throw error;
  }
  telemetry.useModel(model);

  const secrets = secretValuesOf(settings);
  const stop = startStop(input.signal, input.timeoutMs ?? options.defaultTimeoutMs ?? 30 * 60_000);
  const metrics = new MetricsTracker(model, settings.maxBudgetPerTask);
  let mcp: McpToolset | null = null;
  const release = async () => {
    stop.dispose();
    await mcp?.close().catch(() => {});
  };
  try {
    const workingDir = (await input.runtime.inspect(input.sandboxId)).workingDir;
    // The read-only agent connects no MCP server: nothing tells which of their tools only read.
    mcp = await connectMcpServers(readOnly ? null : settings.mcpConfig, {
      runtime: input.runtime,
      sandboxId: input.sandboxId,
      signal: stop.signal,
      ...(options.mcp?.connectTimeoutMs ? { connectTimeoutMs: options.mcp.connectTimeoutMs } : {}),
      ...(options.mcp?.callTimeoutMs ? { callTimeoutMs: options.mcp.callTimeoutMs } : {}),
    });
    for (const failure of mcp.failures) await sink.note({ type: 'mcp_server_unavailable', server: failure.server, error: failure.error });
    // The owner's security analyzer; a name nobody registered rates nothing (every action waits in confirmation mode).
    const { security, unknown: unknownAnalyzer } = runSecurity(settings, options);
    if (unknownAnalyzer) await sink.note({ type: 'security_analyzer_unknown', analyzer: unknownAnalyzer.slice(0, 100) });
    const mcpServers = settings.mcpConfig ? Object.values(settings.mcpConfig).flat().length : 0;
    if (readOnly && mcpServers > 0) await sink.note({ type: 'mcp_servers_skipped', servers: mcpServers, reason: 'the read-only agent uses no MCP servers' });

    // The run's host tools (`githubTools` is what embedders passed before there were other hosts).
    const given = input.hostTools ?? input.githubTools ?? null;
    const toolsOnHost = given && !readOnly ? hostTools(given) : [];
    const tools = toolbox([
      ...(readOnly ? readOnlySandboxTools() : [terminalTool(options.terminal), fileEditorTool()]),
      thinkTool(),
      finishTool(),
      ...(input.platformTools ? platformTools().filter((tool) => !readOnly || tool.readOnly) : []),
      ...toolsOnHost,
      ...(settings.searchApiKey ? [webSearchTool(settings.searchApiKey, { ...options.webSearch, ...(options.fetch ? { fetch: options.fetch } : {}) })] : []),
      ...mcp.tools.map(mcpAgentTool),
    ]);
    const history: HistoryEvent[] = input.history?.length ? fromStoredEvents(input.history) : [];
    if (history.length === 0) history.push(messageEvent('user', firstMessage(input)));
    else if (input.resumed) history.push(messageEvent('user', resumedNotice(input.resumed.attempt)));
    if (settings.maxBudgetPerTask !== null && !metrics.costKnown) {
      await sink.note({ type: 'budget_not_enforced', reason: `no price is known for ${model.name}` });
    }
    const run: AgentRun = {
      input,
      settings,
      model,
      metrics,
      telemetry,
      secrets,
      stop,
      sink,
      tools: security.asksModel ? withRiskArguments(tools) : tools,
      security,
      toolContext: {
        runtime: input.runtime,
        sandboxId: input.sandboxId,
        workingDir,
        env: commandEnvironment(input),
        signal: stop.signal,
        ...(input.platformTools ? { platform: input.platformTools } : {}),
        ...(given ? { host: hostPort(given) } : {}),
      },
      systemPrompt: withRiskAssessment(systemPrompt(workingDir, tools.names, settings.language), security),
      history,
      maxIterations: settings.maxIterations ?? options.defaultMaxIterations ?? 100,
      maxRetries: options.maxRetries ?? 4,
      condenser: options.condenser ?? {},
    };
    return { run, release };
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * What the model is told when a run's attempt takes up an interrupted one: the history above is
 * the earlier attempt's, the sandbox is new. Kept out of the stored conversation (each attempt
 * says it afresh).
 */
export function resumedNotice(attempt: number): string {
  return `[platform] Your work on this task was interrupted: the worker running you stopped. You continue as attempt ${attempt}, in a new sandbox: files created or changed before are gone (the repository, if any, is cloned again). A tool call above without a result was interrupted and may have run in part. Check the current state before you go on; do not redo steps whose results you have unless their effects are needed again here.`;
}
