/**
 * The environment and files a command agent gets: its task, the event, and the owner's settings,
 * decrypted only here, at run time.
 * @module
 */
import type { AgentRunInput, AgentSettings } from '../ports/agent-runner.js';
import type { SandboxFile } from '../ports/sandbox-runtime.js';
import type { ProviderType } from '../schemas/provider-tokens.js';
import { CHAT_PROVIDER_TYPES } from '../schemas/vocabulary.js';
import { secretValuesOf } from './secret-values.js';

export const EVENT_FILE = '.agent-platform/event.json';
export const MCP_CONFIG_FILE = '.agent-platform/mcp.json';

/** `github` → `GITHUB`, `azure_devops` → `AZURE_DEVOPS`. */
const providerPrefix = (provider: ProviderType): string => provider.toUpperCase();

export interface AgentLaunch {
  env: Record<string, string>;
  files: SandboxFile[];
  /** Every secret value handed to the agent, so its output can be scrubbed of them. */
  secrets: string[];
}

export function agentLaunch(input: AgentRunInput, workingDir: string): AgentLaunch {
  const { settings } = input;
  const env: Record<string, string> = {
    AGENT_PLATFORM_INSTRUCTIONS: input.instructions,
    AGENT_PLATFORM_CONVERSATION_ID: input.conversationId,
  };
  const files: SandboxFile[] = [];
  const inSandbox = (relative: string) => `${workingDir.replace(/\/+$/, '')}/${relative}`;
  if (input.runId) env.AGENT_PLATFORM_RUN_ID = input.runId;
  if (input.eventPayloadJson !== null) {
    files.push({ path: EVENT_FILE, content: input.eventPayloadJson, mode: 0o600 });
    env.AGENT_PLATFORM_EVENT_FILE = inSandbox(EVENT_FILE);
  }
  const set = (name: string, value: string | number | boolean | null) => {
    if (value !== null) env[name] = String(value);
  };
  set('LLM_MODEL', settings.llmModel);
  set('LLM_BASE_URL', settings.llmBaseUrl);
  // The command agent is the LLM client here, so it gets the key (the built-in agent never does).
  if (settings.llmApiKey) env.LLM_API_KEY = settings.llmApiKey;
  for (const [provider, entry] of Object.entries(settings.providerTokens) as [ProviderType, { token: string; host: string | null }][]) {
    // A chat's token (Slack's) stays out of the sandbox: the agent replies through its host tool.
    if (CHAT_PROVIDER_TYPES.includes(provider)) continue;
    env[`${providerPrefix(provider)}_TOKEN`] = entry.token;
    if (entry.host) env[`${providerPrefix(provider)}_HOST`] = entry.host;
  }
  if (settings.gitUserName) {
    env.GIT_AUTHOR_NAME = settings.gitUserName;
    env.GIT_COMMITTER_NAME = settings.gitUserName;
  }
  if (settings.gitUserEmail) {
    env.GIT_AUTHOR_EMAIL = settings.gitUserEmail;
    env.GIT_COMMITTER_EMAIL = settings.gitUserEmail;
  }
  if (settings.mcpConfig) {
    files.push({ path: MCP_CONFIG_FILE, content: JSON.stringify(settings.mcpConfig), mode: 0o600 });
    env.AGENT_PLATFORM_MCP_CONFIG_FILE = inSandbox(MCP_CONFIG_FILE);
  }
  // Custom secrets never replace a variable the platform sets.
  for (const [name, value] of Object.entries(settings.customSecrets)) if (!(name in env)) env[name] = value;
  set('MAX_ITERATIONS', settings.maxIterations);
  set('MAX_BUDGET_PER_TASK', settings.maxBudgetPerTask);
  set('CONFIRMATION_MODE', settings.confirmationMode);
  return { env, files, secrets: secretValuesOf(settings) };
}

/** Settings with nothing set: for tests and for owners who stored none. */
export const emptyAgentSettings = (): AgentSettings => ({
  agent: null,
  llmModel: null,
  llmApiKey: null,
  llmBaseUrl: null,
  providerTokens: {},
  gitUserName: null,
  gitUserEmail: null,
  mcpConfig: null,
  maxIterations: null,
  maxBudgetPerTask: null,
  confirmationMode: null,
  enableDefaultCondenser: true,
  customSecrets: {},
  securityAnalyzer: null,
  searchApiKey: null,
  language: null,
  sandboxImage: null,
  sandboxApiKey: null,
});
