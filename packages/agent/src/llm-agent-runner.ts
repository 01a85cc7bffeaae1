/**
 * `createLlmAgentRunner`: the built-in agent. The loop runs here, in the platform
 * process: it calls the owner's model with the history and the tools, records each tool call
 * as an OpenHands `ActionEvent`, runs it — in the sandbox (terminal, file editor, stdio MCP
 * servers), on an MCP server, or on the platform — and records the `ObservationEvent`, until the
 * model calls `finish`, answers without a tool, or a limit stops it: `max_iterations`,
 * `max_budget_per_task`, the run's time limit, a cancel.
 *
 * The run is a short function over its steps (`steps/`): each writes what it does to one
 * `EventSink`, which `streamEvents` turns into the port's `AgentEvent`s as they happen.
 *
 * Each run is traced (`telemetry/`): an `invoke_agent` span under the span active when it starts,
 * a span per step, model call and tool call, and the GenAI token and duration metrics.
 * @module
 */
import type { AgentOutcome, AgentRunInput, AgentRunner } from '@agent-platform/core';
import type { AgentRun } from './run/agent-run.js';
import type { LlmAgentRunnerOptions } from './run/options.js';
import { prepareRun } from './run/prepare-run.js';
import { analyzerNames, checkSecurityOptions } from './security/run-security.js';
import type { EventSink } from './sink/event-sink.js';
import { streamEvents } from './sink/event-stream.js';
import { takeStep } from './steps/take-step.js';
import { AgentTelemetry } from './telemetry/agent-telemetry.js';
import type { RunTelemetry } from './telemetry/run-telemetry.js';

export type { LlmAgentRunnerOptions } from './run/options.js';

export function createLlmAgentRunner(options: LlmAgentRunnerOptions = {}): AgentRunner {
  const telemetry = new AgentTelemetry(options.telemetry);
  checkSecurityOptions(options);
  return {
    run: (input) => streamEvents((sink) => telemetry.invokeAgent(input, (trace) => runAgent(input, options, trace, sink))),
    // The names owners may save in `security_analyzer` (the platform checks settings against them).
    securityAnalyzers: analyzerNames(options),
  };
}

/** One run: set up, steps until one ends it, its outcome reported, then what it holds released. */
async function runAgent(input: AgentRunInput, options: LlmAgentRunnerOptions, telemetry: RunTelemetry, sink: EventSink): Promise<void> {
  const finish = (outcome: AgentOutcome) => {
    telemetry.finished(outcome);
    return sink.finish(outcome);
  };
  const prepared = await prepareRun(input, options, telemetry, sink);
  if ('outcome' in prepared) return finish(prepared.outcome);
  try {
    await finish(await steps(prepared.run));
  } finally {
    await prepared.release();
  }
}

async function steps(run: AgentRun): Promise<AgentOutcome> {
  for (let iteration = 1; iteration <= run.maxIterations; iteration++) {
    const outcome = await run.telemetry.step(() => takeStep(run));
    if (outcome) return outcome;
  }
  return { status: 'FAILED', reason: `max iterations reached (${run.maxIterations})`, metrics: run.metrics.snapshot() };
}
