/**
 * One run of the agent, as its steps share it: the owner's settings and model, the tools, the
 * history the model is shown, the metrics and telemetry, what stops it and the sink its events
 * go to.
 * @module
 */
import type { AgentOutcome, AgentRunInput, AgentSettings } from '@agent-platform/core';
import type { CondenserOptions } from '../history/condenser.js';
import type { HistoryEvent } from '../history/events.js';
import type { MetricsTracker } from '../model/metrics.js';
import type { ResolvedModel } from '../model/model.js';
import type { EventSink } from '../sink/event-sink.js';
import type { RunSecurity } from '../security/run-security.js';
import type { RunTelemetry } from '../telemetry/run-telemetry.js';
import type { ToolContext } from '../tools/tool.js';
import type { Toolbox } from '../tools/toolbox.js';
import type { RunStop } from './stop.js';

export interface AgentRun {
  readonly input: AgentRunInput;
  readonly settings: AgentSettings;
  readonly model: ResolvedModel;
  readonly metrics: MetricsTracker;
  /** The run's spans and metrics. */
  readonly telemetry: RunTelemetry;
  /** The secret values of the owner's settings: never in what the model or the events see. */
  readonly secrets: readonly string[];
  readonly stop: RunStop;
  readonly sink: EventSink;
  readonly tools: Toolbox;
  /** The owner's security analyzer and the host's confirmation threshold. */
  readonly security: RunSecurity;
  readonly toolContext: ToolContext;
  readonly systemPrompt: string;
  /** What the model is shown, oldest first: the stored conversation, then this run's events. */
  readonly history: HistoryEvent[];
  readonly maxIterations: number;
  readonly maxRetries: number;
  readonly condenser: CondenserOptions;
}

/** An event of the run: into the history the model sees, and out to the sink. */
export async function remember(run: AgentRun, entry: HistoryEvent): Promise<void> {
  run.history.push(entry);
  await run.sink.record(entry);
}

/** The outcome of a run its signal stopped (cancel or time limit). */
export const stopped = (run: AgentRun): AgentOutcome => run.stop.outcome(run.metrics.snapshot());
