/**
 * The agent's metrics: semconv's GenAI client histograms (`gen_ai.client.token.usage`,
 * `gen_ai.client.operation.duration`), and the counters operators graph as tokens and cost by
 * model (`agent_platform.model.tokens`, `agent_platform.model.cost`).
 *
 * Model names come from owners' settings: each label keeps its first {@link MODEL_LABEL_LIMIT}
 * distinct values, then says `other` (core's `BoundedLabel`). The attributes of a model are built
 * once per run ({@link ModelLabels}), so a call records with objects it already has.
 * @module
 */
import { BoundedLabel } from '@agent-platform/core';
import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';
import type { StepUsage } from '../model/model-call.js';
import type { ResolvedModel } from '../model/model.js';
import { ATTR, OPERATION, providerName } from './gen-ai.js';

/** Distinct model names a label keeps before it says `other`. */
export const MODEL_LABEL_LIMIT = 100;

/** Semconv's advice for `gen_ai.client.token.usage`: powers of 4 up to 4^13. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** Semconv's advice for `gen_ai.client.operation.duration`: 10 ms doubling up to 81.92 s. */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** One model's metric attributes, bounded and built once. */
export interface ModelLabels {
  readonly inputTokens: Attributes;
  readonly outputTokens: Attributes;
  readonly duration: Attributes;
  readonly tokensIn: Attributes;
  readonly tokensOut: Attributes;
  readonly cost: Attributes;
}

export class AgentMetrics {
  private readonly requestModels = new BoundedLabel(MODEL_LABEL_LIMIT);
  private readonly modelNames = new BoundedLabel(MODEL_LABEL_LIMIT);
  private readonly tokenUsage: Histogram;
  private readonly operationDuration: Histogram;
  private readonly tokens: Counter;
  private readonly cost: Counter;

  constructor(meter: Meter) {
    this.tokenUsage = meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Tokens used by one model call, by token type (input, output)',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.operationDuration = meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'Duration of one model call, its retries included',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.tokens = meter.createCounter('agent_platform.model.tokens', {
      description: "Tokens the built-in agent's model calls used, by model (the owner's llm_model) and type (input, output)",
      unit: '{token}',
    });
    this.cost = meter.createCounter('agent_platform.model.cost', {
      description: "Cost of the built-in agent's model calls in USD, by model; calls to a model without a known price are left out",
      unit: 'USD',
    });
  }

  /** The attributes `model`'s calls record with. */
  labelsFor(model: ResolvedModel): ModelLabels {
    const genAi = {
      [ATTR.operation]: OPERATION.chat,
      [ATTR.providerName]: providerName(model.provider),
      [ATTR.requestModel]: this.requestModels.of(model.modelId),
    };
    const name = this.modelNames.of(model.name);
    return {
      inputTokens: { ...genAi, [ATTR.tokenType]: 'input' },
      outputTokens: { ...genAi, [ATTR.tokenType]: 'output' },
      duration: genAi,
      tokensIn: { model: name, type: 'input' },
      tokensOut: { model: name, type: 'output' },
      cost: { model: name },
    };
  }

  /** A model call that answered: its duration, tokens and (when its price is known) cost. */
  callDone(labels: ModelLabels, seconds: number, usage: StepUsage, cost: number | null): void {
    this.operationDuration.record(seconds, labels.duration);
    this.tokenUsage.record(usage.inputTokens, labels.inputTokens);
    this.tokenUsage.record(usage.outputTokens, labels.outputTokens);
    this.tokens.add(usage.inputTokens, labels.tokensIn);
    this.tokens.add(usage.outputTokens, labels.tokensOut);
    if (cost !== null) this.cost.add(cost, labels.cost);
  }

  /** A model call that failed for good: its duration, with the class of error. */
  callFailed(labels: ModelLabels, seconds: number, errorType: string): void {
    this.operationDuration.record(seconds, { ...labels.duration, [ATTR.errorType]: errorType });
  }
}
