/**
 * The agent runner port: runs an agent for a conversation inside a sandbox and reports what it
 * does as conversation events. The built-in adapter is the command runner
 * (`createCommandAgentRunner`), which runs a configured program in the sandbox.
 * @module
 */
import type { ProviderType } from '../schemas/provider-tokens.js';
import type { McpConfig } from '../schemas/mcp-config.js';
import type { SandboxRuntime } from './sandbox-runtime.js';

/** The owner's settings, decrypted: they reach the agent only at run time. */
export interface AgentSettings {
  llmModel: string | null;
  llmApiKey: string | null;
  llmBaseUrl: string | null;
  providerTokens: Partial<Record<ProviderType, { token: string; host: string | null }>>;
  gitUserName: string | null;
  gitUserEmail: string | null;
  mcpConfig: McpConfig | null;
  maxIterations: number | null;
  maxBudgetPerTask: number | null;
  confirmationMode: boolean | null;
}

export interface AgentRunInput {
  runtime: SandboxRuntime;
  sandboxId: string;
  conversationId: string;
  /** The automation run, when the agent runs for one. */
  runId: string | null;
  /** The task: an automation's instructions, or a conversation's first message. */
  instructions: string;
  /** The triggering event's payload as JSON text, for event-triggered runs. */
  eventPayloadJson: string | null;
  settings: AgentSettings;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What the agent did, as it happens; secrets are never in it. */
export type AgentEvent =
  | { type: 'output'; message: string }
  | { type: 'event'; data: Record<string, unknown> }
  | { type: 'finished'; outcome: AgentOutcome };

export interface AgentOutcome {
  status: 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT';
  /** Why it did not complete: the end of the agent's error output, or what stopped it. */
  reason: string | null;
}

export interface AgentRunner {
  /** Runs the agent; yields its events and ends with exactly one `finished`. */
  run(input: AgentRunInput): AsyncIterable<AgentEvent>;
}
