/**
 * The engine in-process, as the thread tests run it: memory storage, a fresh secret key, the
 * process sandbox, the built-in LLM agent and a quick executor poll; a test adds only what it is
 * about (GitHub's webhook secrets, an answer host).
 * @module
 */
import { createLlmAgentRunner } from '@agent-platform/agent';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  generateSecretKey,
  type AgentPlatform,
  type AgentPlatformOptions,
  type Run,
  type SandboxRuntime,
} from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { until } from './polling.js';

/** The owner the thread tests act as. */
export const alice = { userId: 'alice', orgId: 'acme' };

/** Starts the engine with `options` over the defaults above (stop the platform, then close the runtime). */
export async function startEngine(options: Partial<AgentPlatformOptions> = {}): Promise<{ platform: AgentPlatform; runtime: SandboxRuntime }> {
  const runtime = createProcessRuntime();
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'https://agents.example.com',
    runtime,
    agent: createLlmAgentRunner(),
    executor: { pollIntervalMs: 50 },
    ...options,
  });
  await platform.start();
  return { platform, runtime };
}

/** Alice's run `id` once it ended (or was skipped) and its outcome was posted in its thread. */
export async function reportedRun(platform: AgentPlatform, id: string): Promise<Run> {
  await until(async () => {
    const run = await platform.automations.getRun(alice, id);
    return ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'].includes(run.status) && run.report?.comment_due === false;
  });
  return platform.automations.getRun(alice, id);
}
