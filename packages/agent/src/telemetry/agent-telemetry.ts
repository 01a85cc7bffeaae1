/**
 * The built-in agent's traces and metrics (OpenTelemetry API; GenAI semantic conventions). The
 * tracer and meter are taken once, when the runner is created, from the providers given or the
 * global ones (the metrics API has no stand-in that picks up a provider registered later).
 *
 * A run is an `invoke_agent` span, a child of the span active when it starts (the engine's run
 * span), with a span per step, and within it per model call (`chat {model}`) and per tool call
 * (`execute_tool {tool}`). Nothing a user or a model wrote is recorded: no prompt, completion,
 * tool arguments or output, command, payload or secret; only ids, names, counts, statuses,
 * tokens and cost.
 * @module
 */
import { inSpan, type AgentRunInput, type TelemetryOptions } from '@agent-platform/core';
import { metrics, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import { AgentMetrics } from './agent-metrics.js';
import { AGENT_NAME, ATTR, INSTRUMENTATION_SCOPE, OPERATION, SPAN } from './gen-ai.js';
import { RunTelemetry } from './run-telemetry.js';

export class AgentTelemetry {
  private readonly tracer: Tracer;
  private readonly metrics: AgentMetrics;

  constructor(options: TelemetryOptions = {}) {
    this.tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE);
    this.metrics = new AgentMetrics((options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE));
  }

  /** Runs one agent run in its `invoke_agent` span; the number of steps it took is set on the span at the end. */
  invokeAgent(input: AgentRunInput, work: (run: RunTelemetry) => Promise<void>): Promise<void> {
    const attributes: Attributes = {
      [ATTR.operation]: OPERATION.invokeAgent,
      [ATTR.agentName]: AGENT_NAME,
      [ATTR.conversationId]: input.conversationId,
    };
    if (input.runId) attributes[ATTR.runId] = input.runId;
    return inSpan(this.tracer, SPAN.invokeAgent, { attributes }, async (span) => {
      const run = new RunTelemetry(this.tracer, this.metrics, span);
      try {
        await work(run);
      } finally {
        span.setAttribute(ATTR.runSteps, run.steps);
      }
    });
  }
}
