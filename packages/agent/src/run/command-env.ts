/**
 * The environment of the commands the built-in agent runs in the sandbox: custom secrets, the
 * git identity and the git providers' tokens (so `git push` and `gh` work), the run's ids. Never the
 * LLM key (the model is called from the platform process), nor a chat's token (Slack's).
 * @module
 */
import { CHAT_PROVIDER_TYPES, type AgentRunInput, type ProviderType } from '@agent-platform/core';

export function commandEnvironment(input: AgentRunInput): Record<string, string> {
  const { settings } = input;
  const env: Record<string, string> = { ...settings.customSecrets };
  for (const [provider, entry] of Object.entries(settings.providerTokens) as [ProviderType, { token: string; host: string | null } | undefined][]) {
    // A chat's token (Slack's) stays out of the sandbox: the agent replies through its host tool.
    if (!entry || CHAT_PROVIDER_TYPES.includes(provider)) continue;
    env[`${provider.toUpperCase()}_TOKEN`] = entry.token;
    if (entry.host) env[`${provider.toUpperCase()}_HOST`] = entry.host;
  }
  if (settings.gitUserName) env.GIT_AUTHOR_NAME = env.GIT_COMMITTER_NAME = settings.gitUserName;
  if (settings.gitUserEmail) env.GIT_AUTHOR_EMAIL = env.GIT_COMMITTER_EMAIL = settings.gitUserEmail;
  env.AGENT_PLATFORM_CONVERSATION_ID = input.conversationId;
  if (input.runId) env.AGENT_PLATFORM_RUN_ID = input.runId;
  // Whatever a custom secret is called, it cannot carry the LLM key in.
  for (const name of ['LLM_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY']) {
    if (env[name] !== undefined && env[name] === settings.llmApiKey) delete env[name];
  }
  return env;
}
