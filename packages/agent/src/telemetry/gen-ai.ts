/**
 * The names the agent's spans and metrics use: the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/) where they name a thing, the
 * `agent_platform.` prefix where they do not. Dashboards and alerts depend on these: renaming
 * one is a breaking change.
 * @module
 */

/** The instrumentation scope of the agent's spans and metrics. */
export const INSTRUMENTATION_SCOPE = '@agent-platform/agent';

/** `gen_ai.agent.name` of the built-in agent. */
export const AGENT_NAME = 'agent-platform';

/** Span names: semconv's `{operation} {subject}` for the GenAI ones. */
export const SPAN = {
  invokeAgent: `invoke_agent ${AGENT_NAME}`,
  step: 'agent_platform.agent.step',
  chat: (requestModel: string) => `chat ${requestModel}`,
  executeTool: (toolName: string) => `execute_tool ${toolName}`,
} as const;

export const ATTR = {
  operation: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  /** The name `gen_ai.provider.name` had before semconv 1.37; backends built on it still read it. */
  system: 'gen_ai.system',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheWriteTokens: 'gen_ai.usage.cache_creation.input_tokens',
  reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
  /** Not in semconv: the call's cost in USD from the price table, only when the model's price is known. */
  cost: 'gen_ai.usage.cost',
  tokenType: 'gen_ai.token.type',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  errorType: 'error.type',
  runId: 'agent_platform.run.id',
  runStatus: 'agent_platform.agent.status',
  runSteps: 'agent_platform.agent.steps',
  stepIndex: 'agent_platform.step.index',
  retries: 'agent_platform.model.retries',
  /** Why the model was called: `step` (the loop) or `condense` (summarising older history). */
  purpose: 'agent_platform.model.purpose',
  toolOutcome: 'agent_platform.tool.outcome',
  toolError: 'agent_platform.tool.error',
} as const;

export const OPERATION = { invokeAgent: 'invoke_agent', chat: 'chat', executeTool: 'execute_tool' } as const;

/**
 * Semconv's `gen_ai.provider.name` for the price table's provider ids (`ResolvedModel.provider`)
 * that semconv spells differently; the others are kept as they are (`openai`, `anthropic`,
 * `deepseek`, `groq`, `openrouter`, …). An OpenAI-compatible server of the owner's is `_OTHER`:
 * semconv's value for a provider it cannot name.
 */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  mistral: 'mistral_ai',
  'x-ai': 'x_ai',
  google: 'gcp.gemini',
  together: 'together_ai',
  local: 'ollama',
  custom: '_OTHER',
};

export function providerName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/** Longest tool name or finish reason kept (names from a model or an MCP server: any length). */
const MAX_NAME = 100;

export const shortName = (name: string): string => (name.length > MAX_NAME ? name.slice(0, MAX_NAME) : name);
