/**
 * The options of `createLlmAgentRunner`.
 * @module
 */
import type { TelemetryOptions } from '@agent-platform/core';
import type { CondenserOptions } from '../history/condenser.js';
import type { TerminalOptions } from '../tools/terminal.js';

export interface LlmAgentRunnerOptions {
  /** Steps (model calls) when the owner set no `max_iterations`. Default 100. */
  defaultMaxIterations?: number;
  /** Retries of a model call on 408/409/429/5xx and network errors, with exponential backoff. Default 4. */
  maxRetries?: number;
  /** The terminal tool's limits. */
  terminal?: TerminalOptions;
  /** When the condenser summarises (if the owner has it on). */
  condenser?: CondenserOptions;
  /** `fetch` for the model calls (proxies, tests). */
  fetch?: typeof globalThis.fetch;
  /** Time limit when the run gives none. Default 30 minutes. */
  defaultTimeoutMs?: number;
  /** MCP connection limits. */
  mcp?: { connectTimeoutMs?: number; callTimeoutMs?: number };
  /**
   * Where the agent's spans and metrics go (OpenTelemetry GenAI conventions). Default: the global
   * tracer and meter providers, as they are when the runner is created.
   */
  telemetry?: TelemetryOptions;
}
