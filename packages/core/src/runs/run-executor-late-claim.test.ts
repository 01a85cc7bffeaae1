/**
 * A claim whose answer comes back late — the claim waited on the storage's lock, or on a database
 * link that stopped carrying packets, for longer than its lease — holds a run whose lease already
 * lapsed, which any executor (this one included) may take back at once. The executor must not
 * start such a run, and must never have two agents on one run, or a tool call runs twice.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  type AgentPlatform,
  type RunQueue,
  type StorageAdapter,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';

const alice = { userId: 'alice', orgId: 'acme' };
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The storage's queue, whose first claim that takes runs answers `delayMs` after it was made (as through a paused link). */
function lateFirstClaim(queue: RunQueue, delayMs: number): RunQueue & { lateClaims: number } {
  const late = {
    ...queue,
    lateClaims: 0,
    async claim(request: Parameters<RunQueue['claim']>[0]) {
      const claimed = await queue.claim(request);
      if (claimed.length > 0 && late.lateClaims === 0) {
        late.lateClaims += 1;
        await sleep(delayMs);
      }
      return claimed;
    },
  };
  return late;
}

async function platformWith(storage: StorageAdapter, queue: RunQueue, command: string, leaseMs: number): Promise<AgentPlatform> {
  const runtime = createProcessRuntime();
  const platform = createAgentPlatform({
    storage,
    queue,
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    runtime,
    agent: createCommandAgentRunner({ command }),
    executor: { pollIntervalMs: 20, retryBackoffMs: 10, leaseMs, maxAttempts: 5 },
  });
  await platform.start();
  cleanups.push(async () => {
    await platform.stop();
    await runtime.close();
  });
  return platform;
}

describe('RunExecutor, a claim that comes back after its lease lapsed', () => {
  it('hands the run back unstarted; it then executes once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'late-claim-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const log = path.join(dir, 'executions.log');
    const storage = createMemoryStorage();
    const leaseMs = 300;
    const queue = lateFirstClaim(storage.runQueue, leaseMs * 3);
    const platform = await platformWith(storage, queue, `echo "$AGENT_PLATFORM_RUN_ID" >> '${log}'; sleep 0.3`, leaseMs);
    const automation = await platform.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    const run = await platform.automations.dispatch(alice, automation.id, {});
    platform.executor!.notify();

    const deadline = Date.now() + 15_000;
    let current = await platform.automations.getRun(alice, run.id);
    while (current.status !== 'COMPLETED' && Date.now() < deadline) {
      await sleep(20);
      current = await platform.automations.getRun(alice, run.id);
    }
    expect(queue.lateClaims).toBe(1);
    expect(current.status).toBe('COMPLETED');
    // Give a second agent, were there one, the time to write its line.
    await sleep(500);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([run.id]);
  });
});
