import {
  createAgentPlatform,
  createAgentRouter,
  createCommandAgentRunner,
  createBitbucketAnswerHost,
  createGitLabAnswerHost,
  createSlackAnswerHost,
  type AgentPlatform,
  type TelemetryOptions,
} from '@agent-platform/core';
import { createLlmAgentRunner, createSolvabilityEstimator, type LlmAgentRunnerOptions } from '@agent-platform/agent';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { DATA_FILES, openSecretBox, openStorage, resolveSecretKey } from './storage.js';
import { syncSeededKeys } from './seeded-keys.js';
import path from 'node:path';
import { createDockerRuntime, type EgressEvent } from '@agent-platform/sandbox-docker';
import { dockerContainment } from './containment-config.js';
import { dockerWarmPool } from './warm-pool-config.js';
import { demoAgent } from './demo-agent.js';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';

export interface ServerPlatform {
  platform: AgentPlatform;
  /** Stops the engine, then removes every sandbox. */
  close(): Promise<void>;
}

/**
 * The engine on the server's embedded defaults: PGlite storage in a data directory (PostgreSQL with
 * `DATABASE_URL`, or memory), seeded API keys, sandboxes
 * as local processes (or Docker containers with `AGENT_PLATFORM_SANDBOX=docker`); the built-in LLM
 * agent for owners with `llm_model` set, and for the others the demo agent unless
 * `AGENT_PLATFORM_AGENT_COMMAND` names another. Traces and metrics go to `telemetry`'s providers
 * (`startTelemetry` in telemetry.ts), else to the global ones as they are now.
 */
export async function createServerPlatform(config: ServerConfig, logger: Logger, telemetry: TelemetryOptions = {}): Promise<ServerPlatform> {
  const secretKey = resolveSecretKey(config, logger);
  const storage = await openStorage(config, logger);
  // The platform records egress refusals on the runs; it is created after the runtime.
  let recordEgress: ((event: EgressEvent) => void) | undefined;
  const runtime =
    config.sandbox === 'docker'
      ? createDockerRuntime({
          images: config.dockerImages,
          ownerImages: config.sandboxAllowedImages,
          ...(config.dockerHosts.length > 0 ? { engines: config.dockerHosts } : {}),
          ...dockerContainment(config.containment),
          // Only where runs execute: an API-only process would keep containers nothing claims.
          ...dockerWarmPool(config.executor ? config.dockerWarmPool : 0, config.dockerImages),
          onEgress: (event) => recordEgress?.(event),
        })
      : createProcessRuntime();
  logger.info(
    {
      sandbox: config.sandbox,
      ...(config.sandbox === 'docker'
        ? {
            images: config.dockerImages,
            ownerImages: config.sandboxAllowedImages,
            engines: config.dockerHosts,
            ...config.containment,
            warmPool: config.dockerWarmPool,
          }
        : {}),
    },
    'sandbox runtime',
  );
  const fallbackName = config.agentCommand ? 'command' : 'demo';
  if (config.builtInAgent) {
    logger.info(
      { fallback: fallbackName },
      `owners with llm_model set get the built-in LLM agent; the others get the ${fallbackName === 'demo' ? 'demo agent, which calls no model' : 'AGENT_PLATFORM_AGENT_COMMAND agent'}`,
    );
  } else if (!config.agentCommand)
    logger.info('AGENT_PLATFORM_BUILTIN_AGENT=off and AGENT_PLATFORM_AGENT_COMMAND is not set: runs use the demo agent, which calls no model');
  // The built-in agent's options, the same for its coding and read-only variants.
  const llmAgentOptions: LlmAgentRunnerOptions = {
    telemetry,
    confirmationThreshold: config.confirmationThreshold,
    ...(config.searchBaseUrl ? { webSearch: { baseUrl: config.searchBaseUrl } } : {}),
  };
  const platform = createAgentPlatform({
    storage,
    secrets: openSecretBox(secretKey, logger),
    publicUrl: config.publicUrl,
    // One line per delivery and per run transition.
    logger,
    telemetry,
    // With the built-in agent, a run's "on it" comment shows how solvable the issue looks (the owner's model, their setting).
    github: { webhookSecrets: config.githubWebhookSecrets, ...(config.builtInAgent ? { solvability: createSolvabilityEstimator() } : {}) },
    runtime,
    // Owners choose by their `agent` setting: coding (the default), read-only, command (GET /api/options/agents).
    agent: createAgentRouter({
      llm: config.builtInAgent ? createLlmAgentRunner(llmAgentOptions) : null,
      readOnly: config.builtInAgent ? createLlmAgentRunner({ ...llmAgentOptions, toolset: 'read-only' }) : null,
      fallback: createCommandAgentRunner(config.agentCommand ? { command: config.agentCommand } : demoAgent()),
      fallbackName,
    }),
    executor: {
      leaseMs: config.runLeaseMs,
      concurrency: config.runConcurrency,
      perOrgConcurrency: config.runsPerOrg,
      globalConcurrency: config.runsMax,
    },
    outbound: { allowPrivateAddresses: config.outboundAllowPrivate },
    // Runs started from GitLab (gitlab.com or self-managed, by the owner's token's host) answer there too.
    // Slack: runs started by a mention of the app answer in its thread, with the owner's `slack` bot token.
    // Bitbucket Cloud: runs started by a pull request event answer in it, with the owner's `bitbucket` access token.
    answerHosts: [createGitLabAnswerHost(), createSlackAnswerHost(), createBitbucketAnswerHost()],
  });
  if (config.outboundAllowPrivate) {
    logger.warn(
      'AGENT_PLATFORM_OUTBOUND_ALLOW_PRIVATE is on: subscriptions may send to loopback and private addresses; keep it off where users are not trusted with this network',
    );
  }
  recordEgress = (event) => {
    platform.sandboxes
      .recordEgress(event)
      .catch((error: unknown) => logger.warn({ err: error, sandboxId: event.sandboxId }, 'an egress refusal was not recorded'));
  };
  for (const link of config.githubLinks) await platform.githubLinks.link(link);
  if (config.githubWebhookSecrets.length === 0) {
    logger.info('AGENT_PLATFORM_GITHUB_WEBHOOK_SECRET is not set: the GitHub events endpoint answers 404');
  }
  await syncSeededKeys(platform, config.seededKeys, {
    ledgerFile: config.storage.kind === 'pglite' ? path.join(config.storage.dataDir, DATA_FILES.seededKeys) : null,
    persistent: config.storage.kind !== 'memory',
    keepEarlierSeeds: !config.seededKeysSet,
    logger,
    // PostgreSQL is configured by whoever runs it: no key is made up there.
    firstStart: config.storage.kind === 'postgres' ? null : { consoleUrl: `${config.publicUrl}/console` },
  });
  return {
    platform,
    close: async () => {
      await platform.stop();
      await runtime.close();
    },
  };
}
