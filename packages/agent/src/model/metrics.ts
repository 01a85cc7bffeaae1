/**
 * Token usage and cost of a run's model calls. Prices come from `@pydantic/genai-prices`, a
 * maintained table of provider prices (decision in docs/decisions.md); a model it does not know
 * costs 0 and says so (`cost_known: false`), and then a budget cannot be enforced.
 * @module
 */
import { calcPrice, type PriceCalculationResult } from '@pydantic/genai-prices';
import type { MetricsSnapshot, TokenUsage } from '@agent-platform/core';
import type { StepUsage } from './model-call.js';
import type { ResolvedModel } from './model.js';

/** A model on the owner's own machine (Ollama) costs nothing. */
type LocalPrice = { total_price: number; model: { context_window?: number } };
const LOCAL_PRICE: LocalPrice = { total_price: 0, model: {} };

export class MetricsTracker {
  private usage: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
  private cost = 0;
  private known = true;
  private calls = 0;
  /** Prompt tokens of the latest call: how full the context is. */
  lastPromptTokens = 0;
  readonly contextWindow: number | null;

  constructor(
    private readonly model: ResolvedModel,
    private readonly budget: number | null,
  ) {
    this.contextWindow = this.price({ input_tokens: 1, output_tokens: 1 })?.model.context_window ?? null;
  }

  /** Adds one model call's usage and cost; returns that call's cost in USD, or null when its price is unknown. */
  add(usage: StepUsage): number | null {
    const turn: TokenUsage = {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      cache_read_tokens: usage.cacheReadTokens,
      cache_write_tokens: usage.cacheWriteTokens,
      reasoning_tokens: usage.reasoningTokens,
    };
    this.calls += 1;
    this.lastPromptTokens = turn.prompt_tokens;
    for (const key of Object.keys(turn) as (keyof TokenUsage)[]) this.usage[key] += turn[key];
    const price = this.price({
      input_tokens: turn.prompt_tokens,
      output_tokens: turn.completion_tokens,
      cache_read_tokens: Math.min(turn.cache_read_tokens, turn.prompt_tokens),
      cache_write_tokens: Math.min(turn.cache_write_tokens, Math.max(0, turn.prompt_tokens - turn.cache_read_tokens)),
    });
    if (!price) {
      this.known = false;
      return null;
    }
    this.cost += price.total_price;
    return price.total_price;
  }

  /** Whether the budget is spent (never, when there is none or the price is unknown). */
  overBudget(): boolean {
    return this.budget !== null && this.known && this.cost >= this.budget;
  }

  get costKnown(): boolean {
    return this.known;
  }

  snapshot(): MetricsSnapshot {
    return {
      model_name: this.model.name,
      accumulated_cost: Math.round(this.cost * 1e8) / 1e8,
      cost_known: this.known,
      max_budget_per_task: this.budget,
      accumulated_token_usage: { ...this.usage },
      llm_calls: this.calls,
    };
  }

  private price(usage: Record<string, number>): PriceCalculationResult | LocalPrice {
    if (this.model.provider === 'local') return LOCAL_PRICE;
    try {
      const options = this.model.provider === 'custom' ? {} : { providerId: this.model.provider };
      return calcPrice(usage, this.model.modelId, options) ?? null;
    } catch {
      return null;
    }
  }
}
