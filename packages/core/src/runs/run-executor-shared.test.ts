/**
 * Several executors over one storage, as several server or worker processes over one database:
 * runs execute once, a dead executor's runs come back when their lease lapses, and a cancel
 * made through any process reaches the executor running the run.
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
  type SandboxRuntime,
  type StorageAdapter,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { makeRunRecord } from '@agent-platform/testing/fixtures';

const alice = { userId: 'alice', orgId: 'acme' };
const secretKey = generateSecretKey();
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A "process": an engine over the shared storage, with its own runtime and executor. */
async function node(storage: StorageAdapter, command: string | null, executor: Record<string, number> = {}): Promise<AgentPlatform> {
  const runtime: SandboxRuntime | null = command ? createProcessRuntime() : null;
  const platform = createAgentPlatform({
    // Closing one node must not close the storage the others use.
    storage: { ...storage, close: async () => {} } as StorageAdapter,
    secrets: createAesGcmSecretBox({ keys: { k: secretKey } }),
    publicUrl: 'http://localhost',
    ...(runtime && command ? { runtime, agent: createCommandAgentRunner({ command }) } : {}),
    executor: { pollIntervalMs: 20, retryBackoffMs: 10, perOrgConcurrency: 10, ...executor },
  });
  await platform.start();
  cleanups.push(async () => {
    await platform.stop();
    await runtime?.close();
  });
  return platform;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('RunExecutor, several over one storage', () => {
  it('executes each run exactly once when three executors share the work', async () => {
    const storage = createMemoryStorage();
    const dir = mkdtempSync(path.join(tmpdir(), 'executors-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const log = path.join(dir, 'executions.log');
    const command = `echo "$AGENT_PLATFORM_RUN_ID" >> '${log}'; sleep 0.05`;
    const nodes = [await node(storage, command), await node(storage, command), await node(storage, command)];
    const automation = await nodes[0]!.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    const runs = [];
    for (let i = 0; i < 24; i++) runs.push(await nodes[i % 3]!.automations.dispatch(alice, automation.id, {}));
    for (const other of nodes) other.executor!.notify();
    const finished = await until(
      'every run finished',
      async () => (await nodes[0]!.automations.listRuns(alice, automation.id, { limit: 100, offset: 0 })).runs,
      (list) => list.every((run) => run.status === 'COMPLETED'),
    );
    expect(finished).toHaveLength(24);
    const executions = readFileSync(log, 'utf8').trim().split('\n').sort();
    expect(executions).toEqual(runs.map((run) => run.id).sort());
    expect(new Set(finished.map((run) => run.attempt))).toEqual(new Set([1]));
  });

  it('takes a run whose executor died once its lease lapses — not before', async () => {
    const storage = createMemoryStorage();
    // A lease of a second: the recovering executor's own renewals (every third of it) must not
    // miss it on a loaded machine, which would count a third attempt.
    const p = await node(storage, 'echo recovered', { leaseMs: 1_000 });
    const automation = await p.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    const held = makeRunRecord({
      org_id: 'acme',
      automation_id: automation.id,
      status: 'RUNNING',
      attempt: 1,
      delivery_id: null,
      lease_owner: 'wkr_dead',
      lease_expires_at: new Date(Date.now() + 1_500).toISOString(),
    });
    await storage.runs.insertMany([held]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await storage.runs.get('acme', held.id))?.status).toBe('RUNNING');
    const recovered = await until(
      'recovered',
      () => storage.runs.get('acme', held.id),
      (run) => run?.status === 'COMPLETED',
    );
    expect(recovered).toMatchObject({ attempt: 2, lease_owner: null, error_detail: null });
  });

  it('fails a lapsed run that had its last attempt', async () => {
    const storage = createMemoryStorage();
    const p = await node(storage, 'echo never', { leaseMs: 300 });
    const automation = await p.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    const held = makeRunRecord({
      org_id: 'acme',
      automation_id: automation.id,
      status: 'RUNNING',
      attempt: 3,
      delivery_id: null,
      lease_owner: 'wkr_dead',
      lease_expires_at: new Date(0).toISOString(),
    });
    await storage.runs.insertMany([held]);
    const failed = await until(
      'failed',
      () => storage.runs.get('acme', held.id),
      (run) => run?.status === 'FAILED',
    );
    expect(failed?.error_detail).toBe('attempt 3 was interrupted: its executor stopped');
  });

  it('keeps renewing the lease of a long run, so no other executor takes it', async () => {
    const storage = createMemoryStorage();
    const dir = mkdtempSync(path.join(tmpdir(), 'executors-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const log = path.join(dir, 'executions.log');
    // 2.5 leases long; a lease of a second leaves room for a loaded machine's event-loop lag
    // (a renewal half a lease late makes the executor stop the run itself, rightly).
    const command = `echo "$AGENT_PLATFORM_RUN_ID" >> '${log}'; sleep 2.5`;
    const a = await node(storage, command, { leaseMs: 1_000 });
    const automation = await a.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    const run = await a.automations.dispatch(alice, automation.id, {});
    await until(
      'running',
      () => storage.runs.get('acme', run.id),
      (current) => current?.status === 'RUNNING',
    );
    await node(storage, command, { leaseMs: 1_000 });
    const done = await until(
      'completed',
      () => storage.runs.get('acme', run.id),
      (current) => current?.status === 'COMPLETED',
    );
    expect(done?.attempt).toBe(1);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([run.id]);
  });

  it('an executor that lost its lease stops its agent and writes nothing: the run is the new holder’s', async () => {
    const storage = createMemoryStorage();
    const a = await node(storage, 'echo started; sleep 30', { leaseMs: 300 });
    const automation = await a.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    const run = await a.automations.dispatch(alice, automation.id, {});
    const running = await until(
      'agent attached',
      () => storage.runs.get('acme', run.id),
      (current) => Boolean(current?.conversation_id),
    );
    // Another executor took the run over (as after a lapsed lease): A's next renewal finds it gone.
    const lease = { lease_owner: 'wkr_other', lease_expires_at: new Date(Date.now() + 60_000).toISOString() };
    expect(await storage.runs.transition('acme', run.id, { from: ['RUNNING'] }, lease)).not.toBeNull();
    const conversation = await until(
      'A stopped its agent',
      () => storage.conversations.get(running!.conversation_id!),
      (current) => current?.execution_status === 'stopped',
    );
    expect(conversation?.sandbox_status).toBe('MISSING');
    await until(
      'A let go',
      async () => a.executor!.isExecuting(run.id),
      (executing) => !executing,
    );
    expect(await storage.runs.get('acme', run.id)).toMatchObject({ status: 'RUNNING', ...lease, completed_at: null });
    const events = (await storage.conversations.listEvents(running!.conversation_id!, { limit: 50 })).items;
    expect(events.at(-1)?.data).toEqual({ status: 'CANCELLED', reason: 'the run was taken over after its lease lapsed' });
  });

  it('a cancel through another process stops the agent where it runs', async () => {
    const storage = createMemoryStorage();
    const runner = await node(storage, 'echo started; sleep 30');
    const api = await node(storage, null);
    const automation = await api.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    const run = await api.automations.dispatch(alice, automation.id, {});
    runner.executor!.notify();
    const running = await until(
      'agent started',
      () => storage.runs.get('acme', run.id),
      (current) => Boolean(current?.status === 'RUNNING' && current.conversation_id),
    );
    await until(
      'agent output',
      () => storage.conversations.listEvents(running!.conversation_id!, { limit: 10 }),
      (page) => page.items.some((event) => event.kind === 'agent_output'),
    );
    const began = Date.now();
    await api.automations.cancelRun(alice, run.id);
    const conversation = await until(
      'stopped',
      () => storage.conversations.get(running!.conversation_id!),
      (current) => current?.execution_status === 'stopped',
    );
    expect(conversation?.execution_status).toBe('stopped');
    expect(Date.now() - began).toBeLessThan(10_000);
    expect((await storage.runs.get('acme', run.id))?.status).toBe('CANCELLED');
  });
});

describe('RunExecutor shutdown', () => {
  it('hands a running run back to the queue; another executor completes it', async () => {
    const storage = createMemoryStorage();
    const dir = mkdtempSync(path.join(tmpdir(), 'executors-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const marker = path.join(dir, 'first-done');
    // The first execution waits (to be interrupted); later ones finish at once.
    const command = `if [ -e '${marker}' ]; then echo second; else touch '${marker}'; sleep 30; fi`;
    const first = await node(storage, command);
    const automation = await first.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
    const run = await first.automations.dispatch(alice, automation.id, {});
    await until(
      'running',
      () => storage.runs.get('acme', run.id),
      (current) => current?.status === 'RUNNING',
    );
    await until('agent started', async () => (await import('node:fs')).existsSync(marker), Boolean);
    await first.stop();
    expect(await storage.runs.get('acme', run.id)).toMatchObject({ status: 'PENDING', attempt: 0, lease_owner: null });
    await node(storage, command);
    const done = await until(
      'completed elsewhere',
      () => storage.runs.get('acme', run.id),
      (current) => current?.status === 'COMPLETED',
    );
    expect(done?.attempt).toBe(1);
  });
});
