/**
 * The agent runner port: runs an agent for a conversation inside a sandbox and reports what it
 * does as conversation events. Adapters: the command runner (`createCommandAgentRunner`, a
 * configured program in the sandbox), the built-in LLM agent (`@agent-platform/agent`), and
 * `createAgentRouter`, which picks one per owner.
 * @module
 */
import type { RunnerEventDraft } from '../schemas/agent-events.js';
import type { Automation } from '../schemas/automation.js';
import type { ConversationEvent } from '../schemas/app-conversation.js';
import type { MetricsSnapshot } from '../schemas/metrics.js';
import type { SecurityRisk } from '../schemas/security-risk.js';
import type { ProviderType } from '../schemas/provider-tokens.js';
import type { McpConfig } from '../schemas/mcp-config.js';
import type { WebhookView } from '../schemas/webhook.js';
import type { SandboxRuntime } from './sandbox-runtime.js';

/** The owner's settings, decrypted: they reach the agent only at run time. */
export interface AgentSettings {
  /** The owner's `agent` setting: the name of a registered runner. */
  agent: string | null;
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
  /** Summarise older history when the context nears the model's limit (default on). */
  enableDefaultCondenser: boolean;
  /** `secrets_store.custom_secrets`: name → value, set as environment variables of the agent's commands. */
  customSecrets: Record<string, string>;
  /** `security_analyzer`: which analyzer rates the agent's actions (`llm`, `policy`, or one a host registers); `null`: none. */
  securityAnalyzer: string | null;
  /** `search_api_key` (Tavily): the agent has a web-search tool only when it is set. */
  searchApiKey: string | null;
  /** `language` (a BCP 47 tag such as `de` or `pt-BR`): the agent answers and comments in it; `null`: English. */
  language: string | null;
  /** `sandbox_base_container_image` / `sandbox_runtime_container_image`: the owner's sandbox image (the runtime image wins), within what the host allows. */
  sandboxImage: string | null;
  /** `sandbox_api_key`: the owner's credential for a runtime that takes one (a remote runtime); the built-in runtimes take none. */
  sandboxApiKey: string | null;
}

/**
 * What an agent may do on the platform for its owner (the platform tools), validated exactly as the HTTP
 * API validates it. Nothing here returns a webhook signing secret.
 */
export interface AgentPlatformTools {
  listAutomations(): Promise<Automation[]>;
  /** Body as `POST /api/automation/v1`; a `PlatformError` (VALIDATION, …) when it is refused. */
  createAutomation(input: unknown): Promise<Automation>;
  /** Body as `PATCH /api/automation/v1/{id}`. */
  updateAutomation(id: string, input: unknown): Promise<Automation>;
  disableAutomation(id: string): Promise<Automation>;
  /** Registered webhook sources, without their secrets. */
  listWebhookSources(): Promise<WebhookView[]>;
}

/** An issue, pull request or merge request on a code host: its repository (`owner/name`, a project path) and its number. */
export interface GitHubThread {
  repository: string;
  number: number;
}

/**
 * What an automation run's agent may do on the host its event came from, for the automation's
 * owner with their credentials: comment (in a chat: reply in the thread), and where the host has
 * them, label and open a pull (merge) request — only in the run's repositories. Inputs are
 * validated here; a refusal (out of scope, bad input, the host said no) throws a `PlatformError`
 * whose message says why and never holds a credential. The agent names its tools by `host`
 * (`github_comment`, `gitlab_comment`, `create_merge_request`, `slack_reply`, …).
 */
export interface AgentHostTools {
  /** The host adapter's name: `github`, `gitlab`, `bitbucket`, `slack`, or one a host registered. */
  readonly host: string;
  /** The repositories the tools act on; the first is the default. Empty on hosts without repositories (a chat). */
  readonly repositories: readonly string[];
  /** The issue or pull request the run's event is about, the default thread; `null` when none (or a chat's thread). */
  readonly thread: GitHubThread | null;
  /** Comments on an issue or pull request (default: the event's); in a chat, replies in the event's thread. */
  comment(input: { repository?: string; number?: number; body: string }): Promise<{ id: number | string; url: string }>;
  /** Adds labels to an issue or pull request (default: the event's); answers its labels now. Absent on hosts without labels. */
  addLabels?(input: { repository?: string; number?: number; labels: string[] }): Promise<{ labels: string[] }>;
  /** Opens a pull (merge) request from `head` (a branch the agent pushed) into `base` (default: the repository's default branch). Absent on hosts without them. */
  createPullRequest?(input: { repository?: string; title: string; body?: string; head: string; base?: string; draft?: boolean }): Promise<{
    number: number;
    url: string;
  }>;
}

/** The agent's tools on GitHub: every host tool, with GitHub's numeric ids (`host` may be left out: it is GitHub). */
export interface AgentGitHubTools extends Omit<AgentHostTools, 'host'> {
  readonly host?: 'github';
  comment(input: { repository?: string; number?: number; body: string }): Promise<{ id: number; url: string }>;
  addLabels(input: { repository?: string; number?: number; labels: string[] }): Promise<{ labels: string[] }>;
  createPullRequest(input: { repository?: string; title: string; body?: string; head: string; base?: string; draft?: boolean }): Promise<{
    number: number;
    url: string;
  }>;
}

/** An action held for the user's approval (confirmation mode). */
export interface PendingAction {
  actionEventId: string;
  toolName: string;
  summary: string | null;
  /** The owner's security analyzer's rating of it (`security_risk`); absent or `null` when no analyzer rated it. */
  securityRisk?: SecurityRisk | null;
  /** Why it was rated so, in a few words ("force push to main"). */
  securityReason?: string | null;
}

export type ConfirmationDecision = { accept: true } | { accept: false; reason: string };

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
  /** The owner's platform tools; absent where the host gives none. */
  platformTools?: AgentPlatformTools;
  /** The run's host (the code host or chat its event came from) with the owner's credentials; absent where there is none, or no credential. */
  hostTools?: AgentHostTools;
  /** @deprecated Use `hostTools`; read when `hostTools` is absent. */
  githubTools?: AgentGitHubTools;
  /** Events the conversation already holds, oldest first (a resumed conversation's history). */
  history?: readonly ConversationEvent[];
  /**
   * This attempt of a run takes up the work of an earlier attempt that was interrupted (its worker
   * died or shut down): `history` holds what that attempt did, and the sandbox is a new one (the
   * earlier attempt's files are gone; the repository is cloned again). A runner that can resume
   * continues from `history`: a tool call whose observation is stored is not run again, one
   * started but not observed is reported to the model as interrupted. A runner that cannot (a
   * command) starts over.
   */
  resumed?: { attempt: number };
  /**
   * Asks the user to approve an action (confirmation mode); resolves with their decision. Absent:
   * nobody can answer, and a runner in confirmation mode runs actions without asking.
   */
  confirm?: (action: PendingAction) => Promise<ConfirmationDecision>;
  /**
   * User messages stored since the agent started (follow-ups sent while it works), oldest first;
   * each is returned once. Runners that can take them up mid-task call it between steps.
   */
  pendingMessages?: () => Promise<{ id: string; text: string }[]>;
  /**
   * Asked before each model call with the run's usage so far (counted first, should its
   * `metrics` event not have been taken yet): why the agent may not spend now (a budget of its
   * org, owner or automation is spent; the reason names the cap and the figures), or `null` to go
   * on. A runner that calls a model ends FAILED with the reason rather than make the call.
   */
  spendCheck?: (metrics: MetricsSnapshot) => Promise<string | null>;
}

/**
 * What the agent did, as it happens; secrets are never in it. One vocabulary: everything the
 * conversation shows is a `record` (an OpenHands-shaped event, an output line or a note; see
 * `agentOutputDraft` and `agentNoteDraft`), beside the running cost and the one outcome.
 */
export type AgentEvent =
  /** A conversation event, stored under `id` when the runner chose one (so observations can name their action). */
  | { type: 'record'; id?: string; event: RunnerEventDraft }
  /** The token usage and cost so far. */
  | { type: 'metrics'; metrics: MetricsSnapshot }
  | { type: 'finished'; outcome: AgentOutcome };

export interface AgentOutcome {
  status: 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMED_OUT';
  /** Why it did not complete: the end of the agent's error output, or what stopped it. */
  reason: string | null;
  /** The agent's token usage and cost, for agents that report them. */
  metrics?: MetricsSnapshot | null;
  /** The agent's final answer (the finish tool's message), when it gave one. */
  finalResponse?: string | null;
}

export interface AgentRunner {
  /** Runs the agent; yields its events and ends with exactly one `finished`. */
  run(input: AgentRunInput): AsyncIterable<AgentEvent>;
  /**
   * The security analyzers (by name) this runner rates actions with, besides the built-in `llm`
   * and `policy`: names owners may save in `security_analyzer`. Absent: none of its own.
   */
  readonly securityAnalyzers?: readonly string[];
}
