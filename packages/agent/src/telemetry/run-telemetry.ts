/**
 * One run's telemetry, as its steps use it: the `invoke_agent` span it belongs to, a span per
 * step, per model call and per tool call, each a child of the one active when it starts (the
 * step's, within the run's). Without an SDK the spans are the API's no-ops: what is built for
 * them is a few small objects, and attributes known only at the end are set only on a span
 * that records.
 * @module
 */
import { failSpan, inSpan, type AgentOutcome } from '@agent-platform/core';
import type { Span, Tracer } from '@opentelemetry/api';
import type { ResolvedModel } from '../model/model.js';
import type { AgentMetrics } from './agent-metrics.js';
import { chatLabels, inChatSpan, type ChatLabels, type ModelCallPurpose, type ModelCallReport } from './chat-span.js';
import { ATTR, OPERATION, shortName, SPAN } from './gen-ai.js';

/**
 * What a tool call's span reads of how it ended: its kind (`answered`, `rejected`, `finish`,
 * `stopped`) and, for an answer that is an error, the class of error (never its text: it may
 * hold the tool's output or arguments).
 */
export interface ToolCallEndReport {
  readonly type: string;
  readonly error?: string | null;
}

export class RunTelemetry {
  private stepCount = 0;
  private labels: ChatLabels | null = null;

  constructor(
    private readonly tracer: Tracer,
    private readonly metrics: AgentMetrics,
    /** The run's `invoke_agent` span. */
    private readonly span: Span,
  ) {}

  /** Steps begun so far. */
  get steps(): number {
    return this.stepCount;
  }

  /** The run's model, once resolved: named on the run's span, and the attributes of its calls built. */
  useModel(model: ResolvedModel): void {
    this.labels = chatLabels(model, this.metrics);
    if (this.span.isRecording()) {
      const { span } = this.labels;
      this.span.setAttributes({ [ATTR.providerName]: span[ATTR.providerName], [ATTR.system]: span[ATTR.system], [ATTR.requestModel]: model.modelId });
    }
  }

  /**
   * The run's outcome, on its span: FAILED and TIMED_OUT mark it failed. Not with the outcome's
   * reason: it may quote the provider's message; the run's log line and record carry it.
   */
  finished(outcome: AgentOutcome): void {
    if (!this.span.isRecording()) return;
    this.span.setAttribute(ATTR.runStatus, outcome.status);
    if (outcome.status === 'FAILED' || outcome.status === 'TIMED_OUT') {
      this.span.setAttribute(ATTR.errorType, outcome.status);
      failSpan(this.span, `the agent run ended ${outcome.status}`);
    }
  }

  /** Runs one step of the loop in its span. */
  step<T>(work: () => Promise<T>): Promise<T> {
    this.stepCount += 1;
    return inSpan(this.tracer, SPAN.step, { attributes: { [ATTR.stepIndex]: this.stepCount } }, () => work());
  }

  /** Runs one model call (its retries included) in its `chat` span; `account` adds its usage and gives its cost. */
  chat<T extends ModelCallReport>(
    call: { model: ResolvedModel; purpose: ModelCallPurpose; signal: AbortSignal },
    work: () => Promise<T>,
    account: (result: T) => number | null,
  ): Promise<T> {
    let labels = this.labels;
    if (labels?.model !== call.model) labels = this.labels = chatLabels(call.model, this.metrics);
    return inChatSpan(this.tracer, this.metrics, { labels, purpose: call.purpose, signal: call.signal }, work, account);
  }

  /** Runs one tool call in its `execute_tool` span. */
  toolCall<T extends ToolCallEndReport>(call: { toolName: string; toolCallId: string }, work: () => Promise<T>): Promise<T> {
    const name = shortName(call.toolName);
    const attributes = { [ATTR.operation]: OPERATION.executeTool, [ATTR.toolName]: name, [ATTR.toolCallId]: call.toolCallId };
    return inSpan(this.tracer, SPAN.executeTool(name), { attributes }, async (span) => {
      const end = await work();
      if (span.isRecording()) {
        const error = end.error ?? null;
        span.setAttributes({ [ATTR.toolOutcome]: end.type, [ATTR.toolError]: error !== null });
        if (error !== null) {
          span.setAttribute(ATTR.errorType, error);
          failSpan(span, `the tool call ended in ${error}`);
        }
      }
      return end;
    });
  }
}
