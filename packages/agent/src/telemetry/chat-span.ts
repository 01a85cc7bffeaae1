/**
 * The `chat {model}` span of one model call (with its retries) and its metrics. What it records
 * of a call: ids, names, token counts, cost, retries; of a failure, the class of error (an HTTP
 * status, an error's name, `cancelled`, `timeout`) and never the provider's message, which may
 * quote the API key (OpenAI's 401 does) or the request.
 * @module
 */
import { failSpan } from '@agent-platform/core';
import { APICallError } from '@ai-sdk/provider';
import { SpanKind, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { ModelCallError, type ModelStep } from '../model/model-call.js';
import type { ResolvedModel } from '../model/model.js';
import type { AgentMetrics, ModelLabels } from './agent-metrics.js';
import { ATTR, OPERATION, providerName, shortName, SPAN } from './gen-ai.js';

/** What the span reads of a call's result. */
export type ModelCallReport = Pick<ModelStep, 'usage' | 'responseId' | 'responseModel' | 'finishReason' | 'attempts'>;

/** Why the model is called: a step of the loop, or the condenser summarising older history. */
export type ModelCallPurpose = 'step' | 'condense';

/** A run's model, with what its spans and metrics carry, built once per run. */
export interface ChatLabels {
  readonly model: ResolvedModel;
  readonly spanName: string;
  readonly span: Attributes;
  readonly metrics: ModelLabels;
}

export function chatLabels(model: ResolvedModel, metrics: AgentMetrics): ChatLabels {
  const provider = providerName(model.provider);
  return {
    model,
    spanName: SPAN.chat(model.modelId),
    span: {
      [ATTR.operation]: OPERATION.chat,
      [ATTR.providerName]: provider,
      [ATTR.system]: provider,
      [ATTR.requestModel]: model.modelId,
    },
    metrics: metrics.labelsFor(model),
  };
}

export interface ChatCall {
  labels: ChatLabels;
  purpose: ModelCallPurpose;
  /** The run's stop signal: a call it ended was cancelled or timed out, not failed by the provider. */
  signal: AbortSignal;
}

/**
 * Runs `work` (the model call) in a `chat` span, then `account(result)` (its usage added to the
 * run's metrics), which gives the call's cost in USD, or null when the price is unknown.
 */
export function inChatSpan<T extends ModelCallReport>(
  tracer: Tracer,
  metrics: AgentMetrics,
  call: ChatCall,
  work: () => Promise<T>,
  account: (result: T) => number | null,
): Promise<T> {
  const { labels } = call;
  const attributes = { ...labels.span, [ATTR.purpose]: call.purpose };
  return tracer.startActiveSpan(labels.spanName, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const began = performance.now();
    try {
      const result = await work();
      const cost = account(result);
      metrics.callDone(labels.metrics, (performance.now() - began) / 1000, result.usage, cost);
      if (span.isRecording()) span.setAttributes(resultAttributes(result, cost));
      return result;
    } catch (error) {
      const type = errorType(error, call.signal);
      metrics.callFailed(labels.metrics, (performance.now() - began) / 1000, type);
      recordFailure(span, error, type);
      throw error;
    } finally {
      span.end();
    }
  });
}

function resultAttributes(result: ModelCallReport, cost: number | null): Attributes {
  const { usage } = result;
  const attributes: Attributes = {
    [ATTR.inputTokens]: usage.inputTokens,
    [ATTR.outputTokens]: usage.outputTokens,
    [ATTR.retries]: result.attempts - 1,
  };
  if (result.responseId) attributes[ATTR.responseId] = result.responseId;
  if (result.responseModel) attributes[ATTR.responseModel] = shortName(result.responseModel);
  if (result.finishReason) attributes[ATTR.finishReasons] = [shortName(result.finishReason)];
  if (usage.cacheReadTokens > 0) attributes[ATTR.cacheReadTokens] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens > 0) attributes[ATTR.cacheWriteTokens] = usage.cacheWriteTokens;
  if (usage.reasoningTokens > 0) attributes[ATTR.reasoningTokens] = usage.reasoningTokens;
  if (cost !== null) attributes[ATTR.cost] = cost;
  return attributes;
}

/**
 * The class of a failed call, few and fixed enough for a metric label: the run's stop cause,
 * the provider's HTTP status, or the error's name (`TypeError` for a network failure, …).
 */
export function errorType(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return typeof signal.reason === 'string' ? signal.reason : 'cancelled';
  const last = error instanceof ModelCallError ? error.lastError : error;
  if (APICallError.isInstance(last) && last.statusCode !== undefined) return String(last.statusCode);
  return last instanceof Error ? shortName(last.name) : '_OTHER';
}

function recordFailure(span: Span, error: unknown, type: string): void {
  const attempts = error instanceof ModelCallError ? error.attempts : 1;
  span.setAttributes({ [ATTR.errorType]: type, [ATTR.retries]: attempts - 1 });
  // The class and the attempts only: the provider's message may quote the key or the prompt.
  failSpan(span, `the model call failed: ${type}${attempts > 1 ? ` after ${attempts} attempts` : ''}`);
}
