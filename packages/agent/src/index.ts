/**
 * `@agent-platform/agent`: the built-in LLM agent. Plug it into the platform as an
 * `AgentRunner`, usually behind core's `createAgentRouter` so owners without an `llm_model` get
 * the command runner.
 *
 * @example
 * ```ts
 * import { createAgentPlatform, createAgentRouter, createCommandAgentRunner } from '@agent-platform/core';
 * import { createLlmAgentRunner } from '@agent-platform/agent';
 *
 * const agent = createAgentRouter({
 *   llm: createLlmAgentRunner(),
 *   fallback: createCommandAgentRunner({ command: 'my-agent --headless' }),
 * });
 * const platform = createAgentPlatform({ storage, secrets, publicUrl, runtime, agent });
 * ```
 * @module
 */
export { createLlmAgentRunner, type LlmAgentRunnerOptions } from './llm-agent-runner.js';
export { createSolvabilityEstimator, type SolvabilityEstimatorOptions } from './solvability/solvability-estimator.js';
export { resolveModel, ModelConfigError, type ResolvedModel, type ModelSettings } from './model/model.js';
export { MetricsTracker } from './model/metrics.js';
export { describeModelError } from './model/provider-errors.js';
export type { CondenserOptions } from './history/condenser.js';
export type { TerminalOptions } from './tools/terminal.js';
export type { WebSearchOptions } from './tools/web-search.js';
export type { AgentTool, AnyTool, ParsedArguments, PreparedCall, ToolContext, ToolResult } from './tools/tool.js';
export type { StepUsage } from './model/model-call.js';
