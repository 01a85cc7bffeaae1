/**
 * Token usage and cost of an agent's LLM calls, as OpenHands' `MetricsSnapshot`: recorded on the
 * run and the conversation, and on the last ActionEvent of each model response.
 * @module
 */
import { z } from 'zod';

export const tokenUsageSchema = z.object({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  cache_read_tokens: z.number().int().min(0),
  cache_write_tokens: z.number().int().min(0),
  reasoning_tokens: z.number().int().min(0),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

export const metricsSnapshotSchema = z.object({
  model_name: z.string(),
  /** US dollars, from the provider's token usage and the price table; 0 when the model's price is unknown. */
  accumulated_cost: z.number().min(0),
  /** Whether the model was found in the price table (an unknown model's cost is not counted). */
  cost_known: z.boolean(),
  max_budget_per_task: z.number().nullable(),
  accumulated_token_usage: tokenUsageSchema,
  /** Model calls made. */
  llm_calls: z.number().int().min(0),
});
export type MetricsSnapshot = z.infer<typeof metricsSnapshotSchema>;

export const emptyTokenUsage = (): TokenUsage => ({
  prompt_tokens: 0,
  completion_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
});
