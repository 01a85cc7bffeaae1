/**
 * The options of `createLlmAgentRunner`.
 * @module
 */
import type { ConfirmationThreshold, SecurityAnalyzer, TelemetryOptions } from '@agent-platform/core';
import type { CondenserOptions } from '../history/condenser.js';
import type { TerminalOptions } from '../tools/terminal.js';
import type { WebSearchOptions } from '../tools/web-search.js';

export interface LlmAgentRunnerOptions {
  /** Steps (model calls) when the owner set no `max_iterations`. Default 100. */
  defaultMaxIterations?: number;
  /** Retries of a model call on 408/409/429/5xx and network errors, with exponential backoff. Default 4. */
  maxRetries?: number;
  /** The terminal tool's limits. */
  terminal?: TerminalOptions;
  /** When the condenser summarises (if the owner has it on). */
  condenser?: CondenserOptions;
  /** `fetch` for the model calls and web searches (proxies, tests). */
  fetch?: typeof globalThis.fetch;
  /** Time limit when the run gives none. Default 30 minutes. */
  defaultTimeoutMs?: number;
  /**
   * The web-search tool (`tavily_search`, offered to owners with `search_api_key` set): where it
   * sends searches (`baseUrl`, default Tavily's `https://api.tavily.com`), its time limit and how
   * much of the results the model reads.
   */
  webSearch?: WebSearchOptions;
  /**
   * Which tools the agent has. `full` (the default, the `coding` agent): the terminal, the file
   * editor and every other tool. `read-only` (the `read-only` agent): only tools that read —
   * `view`, `grep`, `glob`, think, finish, web search and the platform tools that list; no
   * terminal, no edits, no GitHub writes, no MCP servers.
   */
  toolset?: 'full' | 'read-only';
  /** MCP connection limits. */
  mcp?: { connectTimeoutMs?: number; callTimeoutMs?: number };
  /**
   * Security analyzers owners may name in their `security_analyzer` setting, besides the built-in
   * `llm` (the model rates its own actions) and `policy` (this platform's rules); a host's wins
   * over a built-in of the same name. The platform accepts these names when settings are saved.
   */
  securityAnalyzers?: Record<string, SecurityAnalyzer>;
  /**
   * In confirmation mode with a security analyzer, the lowest rating that waits for the user
   * (unrated actions always wait; without an analyzer every action that changes something does).
   * Default `HIGH`, as OpenHands' `ConfirmRisky`.
   */
  confirmationThreshold?: ConfirmationThreshold;
  /**
   * Where the agent's spans and metrics go (OpenTelemetry GenAI conventions). Default: the global
   * tracer and meter providers, as they are when the runner is created.
   */
  telemetry?: TelemetryOptions;
}
