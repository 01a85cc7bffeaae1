/**
 * A run's later attempt takes up the earlier one's conversation: the agent gets the stored events
 * and is told it resumes, its events are stamped with its attempt, and the earlier attempt's
 * sandbox is removed before it starts. And an executor that cannot renew a lease stops the run
 * itself, before the lease lapses.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createAesGcmSecretBox,
  agentOutputDraft,
  createAgentPlatform,
  generateSecretKey,
  type AgentEvent,
  type AgentPlatform,
  type AgentRunInput,
  type AgentRunner,
  type RunQueue,
  type StorageAdapter,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { makeConversationEvent, makeConversationRecord, makeRunRecord, makeSandboxRecord } from '@agent-platform/testing/fixtures';

const alice = { userId: 'alice', orgId: 'acme' };
const secretKey = generateSecretKey();
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An agent that records what it was given, reports one action, then waits to be stopped (or ends at once when `finish`). */
function recordingAgent(inputs: AgentRunInput[], finish: () => boolean): AgentRunner {
  return {
    async *run(input): AsyncIterable<AgentEvent> {
      inputs.push(input);
      yield { type: 'record', event: agentOutputDraft(`step of call ${inputs.length}`) };
      if (!finish()) await new Promise<void>((resolve) => input.signal?.addEventListener('abort', () => resolve(), { once: true }));
      yield { type: 'finished', outcome: { status: finish() ? 'COMPLETED' : 'CANCELLED', reason: null } };
    },
  };
}

async function node(
  storage: StorageAdapter,
  agent: AgentRunner,
  executor: Record<string, unknown> = {},
  options: { start?: boolean } = {},
): Promise<AgentPlatform> {
  const runtime = createProcessRuntime();
  const platform = createAgentPlatform({
    storage: { ...storage, close: async () => {} } as StorageAdapter,
    secrets: createAesGcmSecretBox({ keys: { k: secretKey } }),
    publicUrl: 'http://localhost',
    runtime,
    agent,
    executor: { pollIntervalMs: 20, ...executor },
  });
  if (options.start !== false) await platform.start();
  cleanups.push(async () => {
    await platform.stop();
    await runtime.close();
  });
  return platform;
}

/** `read()` once `done` holds of it (vitest's `waitFor`, failing with `what`). */
const until = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeout = 10_000): Promise<T> =>
  vi.waitFor(
    async () => {
      const value = await read();
      if (!done(value)) throw new Error(`${what}: not reached; last ${JSON.stringify(value)}`);
      return value;
    },
    { timeout, interval: 20 },
  );

describe('a run taken up by a later attempt', () => {
  it('continues its conversation: stored events, a resume notice, events stamped with their attempt, the old sandbox removed', async () => {
    const storage = createMemoryStorage();
    const inputs: AgentRunInput[] = [];
    const platform = await node(
      storage,
      recordingAgent(inputs, () => true),
      {},
      { start: false },
    );
    const automation = await platform.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    // Attempt 1 as a SIGKILLed worker leaves it: RUNNING under a lapsed lease, its conversation
    // with what it did, its sandbox still stored as running.
    const sandbox = makeSandboxRecord({ created_by_user_id: 'alice', org_id: 'acme', runtime: 'process', status: 'RUNNING' });
    await storage.sandboxes.insert(sandbox);
    const conversation = makeConversationRecord({
      created_by_user_id: 'alice',
      org_id: 'acme',
      sandbox_id: sandbox.id,
      trigger: 'automation',
      selected_repository: null,
    });
    await storage.conversations.insert(conversation);
    await storage.conversations.appendEvents(conversation.id, [
      makeConversationEvent({ conversation_id: conversation.id, message: 'what attempt 1 did', attempt: 1 }),
    ]);
    const run = makeRunRecord({
      org_id: 'acme',
      automation_id: automation.id,
      delivery_id: null,
      trigger: 'manual',
      status: 'RUNNING',
      attempt: 1,
      started_at: new Date().toISOString(),
      conversation_id: conversation.id,
      sandbox_id: sandbox.id,
      lease_owner: 'a-dead-worker',
      lease_expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    await storage.runs.insertMany([run]);

    await platform.start();
    const done = await until(
      'the run completed',
      () => storage.runs.get('acme', run.id),
      (stored) => stored?.status === 'COMPLETED',
    );
    expect(done?.attempt).toBe(2);
    expect(done?.conversation_id).toBe(conversation.id);
    const resumed = inputs.at(-1) as AgentRunInput;
    expect(resumed.resumed).toEqual({ attempt: 2 });
    expect(resumed.history?.map((event) => event.message)).toContain('what attempt 1 did');
    const events = (await storage.conversations.listEvents(conversation.id, { limit: 200 })).items;
    expect(events.find((event) => event.message === 'step of call 1')?.attempt).toBe(2);
    const note = events.find((event) => (event.data as { type?: string } | null)?.type === 'run_resumed');
    expect(note).toMatchObject({ attempt: 2, data: { attempt: 2, fresh_sandbox: true } });
    // The earlier attempt's sandbox went before this attempt started its own.
    expect((await storage.sandboxes.get(sandbox.id))?.status).toBe('MISSING');
    expect(done?.sandbox_id).not.toBe(sandbox.id);
  });
});

describe('self-fencing', () => {
  it('stops a run whose lease cannot be renewed, before the lease lapses', async () => {
    const storage = createMemoryStorage();
    const inputs: AgentRunInput[] = [];
    // A queue whose renewals hang, as over a network that holds every byte.
    let renewalsHang = false;
    const queue: RunQueue = {
      ...storage.runQueue,
      renew: (...args) => (renewalsHang ? new Promise(() => {}) : storage.runQueue.renew(...args)),
    };
    // Renewed every second; stopped here once less than 1.5 s of a lapsing lease is left.
    const leaseMs = 3000;
    const runtime = createProcessRuntime();
    const fenced = createAgentPlatform({
      storage: { ...storage, close: async () => {} } as StorageAdapter,
      secrets: createAesGcmSecretBox({ keys: { k: secretKey } }),
      publicUrl: 'http://localhost',
      runtime,
      agent: recordingAgent(inputs, () => false),
      queue,
      executor: { pollIntervalMs: 20, leaseMs },
    });
    await fenced.start();
    cleanups.push(async () => {
      await fenced.stop();
      await runtime.close();
    });
    const automation = await fenced.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    const run = await fenced.automations.dispatch(alice, automation.id, {});
    const input = (await until(
      'the agent at work',
      async () => inputs[0],
      (first) => first !== undefined,
    )) as AgentRunInput;
    let abortedAt: number | null = null;
    input.signal?.addEventListener('abort', () => (abortedAt = Date.now()), { once: true });
    renewalsHang = true;
    const leaseEnd = Date.parse((await storage.runs.get('acme', run.id))?.lease_expires_at as string);
    await until(
      'the run stopped here',
      async () => fenced.executor?.isExecuting(run.id),
      (executing) => executing === false,
      10_000,
    );
    // Stopped by this worker itself, before the lease it could not renew lapsed.
    expect(abortedAt).not.toBeNull();
    expect(abortedAt as unknown as number).toBeLessThan(leaseEnd);
    expect(input.signal?.reason).toBe('lease-lost');
  });
});
