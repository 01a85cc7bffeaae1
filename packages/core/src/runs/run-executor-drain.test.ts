/**
 * Stopping with a grace (`stop({ graceMs })`, as a process does on SIGTERM): nothing more is
 * claimed at once; the runs executing get the grace to finish on their own, their leases still
 * renewed and their cancels still followed; those still executing after it go back to PENDING,
 * the attempt not counted and the lease cleared, for another executor to take straight away.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  type AgentPlatform,
  type StorageAdapter,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';

const alice = { userId: 'alice', orgId: 'acme' };
const secretKey = generateSecretKey();
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A "process": an engine over the shared storage, with its own runtime and executor. */
async function node(storage: StorageAdapter, command: string, executor: Record<string, number> = {}): Promise<AgentPlatform> {
  const runtime = createProcessRuntime();
  const platform = createAgentPlatform({
    // Closing one node must not close the storage the others use.
    storage: { ...storage, close: async () => {} } as StorageAdapter,
    secrets: createAesGcmSecretBox({ keys: { k: secretKey } }),
    publicUrl: 'http://localhost',
    runtime,
    agent: createCommandAgentRunner({ command }),
    executor: { pollIntervalMs: 20, retryBackoffMs: 10, perOrgConcurrency: 10, ...executor },
  });
  await platform.start();
  cleanups.push(async () => {
    await platform.stop();
    await runtime.close();
  });
  return platform;
}

function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'executor-drain-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
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

/** Dispatches a run and waits until its agent is at work (the command touched `marker`). */
async function runningRun(platform: AgentPlatform, storage: StorageAdapter, marker: string) {
  const automation = await platform.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
  const run = await platform.automations.dispatch(alice, automation.id, {});
  await until('agent started', async () => existsSync(marker), Boolean);
  expect(await storage.runs.get('acme', run.id)).toMatchObject({ status: 'RUNNING', lease_owner: platform.executor!.workerId });
  return { automation, run };
}

describe('RunExecutor stop with a grace', { timeout: 30_000 }, () => {
  it('lets a run that finishes within the grace complete, and claims nothing meanwhile', async () => {
    const storage = createMemoryStorage();
    const dir = scratch();
    const marker = path.join(dir, 'started');
    const p = await node(storage, `touch '${marker}'; sleep 0.5; echo done`, { concurrency: 1 });
    const { automation, run } = await runningRun(p, storage, marker);
    // With one slot taken, the second run waits: when the first ends, a stopping executor takes no other.
    const waiting = await p.automations.dispatch(alice, automation.id, {});
    const stopping = p.stop({ graceMs: 20_000 });
    expect(p.stopping).toBe(true);
    expect(p.executor!.isExecuting(run.id)).toBe(true);
    await stopping;
    expect(await storage.runs.get('acme', run.id)).toMatchObject({ status: 'COMPLETED', attempt: 1, error_detail: null });
    expect(await storage.runs.get('acme', waiting.id)).toMatchObject({ status: 'PENDING', attempt: 0 });
  });

  it('hands a run still executing when the grace ends back to PENDING: attempt not counted, lease cleared', async () => {
    const storage = createMemoryStorage();
    const dir = scratch();
    const marker = path.join(dir, 'started');
    // The first execution waits (to be interrupted); later ones finish at once.
    const command = `if [ -e '${marker}' ]; then echo second; else touch '${marker}'; sleep 30; fi`;
    const p = await node(storage, command);
    const { run } = await runningRun(p, storage, marker);
    await p.stop({ graceMs: 200 });
    expect(await storage.runs.get('acme', run.id)).toMatchObject({
      status: 'PENDING',
      attempt: 0,
      lease_owner: null,
      lease_expires_at: null,
      error_detail: 'interrupted: its executor shut down',
    });
    await node(storage, command);
    const done = await until(
      'completed elsewhere',
      () => storage.runs.get('acme', run.id),
      (current) => current?.status === 'COMPLETED',
    );
    expect(done?.attempt).toBe(1);
  });

  it('keeps renewing the leases during the grace: another executor does not take the run over', async () => {
    const storage = createMemoryStorage();
    const dir = scratch();
    const marker = path.join(dir, 'started');
    const log = path.join(dir, 'executions.log');
    // Far longer than the lease: it lapses unless renewed (every third of it). The lease is long
    // enough that a loaded machine's event-loop lag does not make the executor fence itself (it
    // stops a run whose renewal is half a lease late), which would hand the run over rightly.
    const command = `echo "$AGENT_PLATFORM_RUN_ID" >> '${log}'; touch '${marker}'; sleep 2.5`;
    const p = await node(storage, command, { leaseMs: 1_000 });
    const { run } = await runningRun(p, storage, marker);
    // Recovers lapsed leases every third of a lease, and would execute the run again.
    await node(storage, command, { leaseMs: 1_000 });
    await p.stop({ graceMs: 20_000 });
    expect(await storage.runs.get('acme', run.id)).toMatchObject({ status: 'COMPLETED', attempt: 1 });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([run.id]);
  });

  it('follows a cancel made during the grace', async () => {
    const storage = createMemoryStorage();
    const dir = scratch();
    const marker = path.join(dir, 'started');
    const p = await node(storage, `touch '${marker}'; sleep 30`);
    const { run } = await runningRun(p, storage, marker);
    const stopping = p.stop({ graceMs: 60_000 });
    await p.automations.cancelRun(alice, run.id);
    await stopping;
    expect(await storage.runs.get('acme', run.id)).toMatchObject({ status: 'CANCELLED' });
  });

  it('ends the grace sooner when stopped again with a shorter one (a second signal)', async () => {
    const storage = createMemoryStorage();
    const dir = scratch();
    const marker = path.join(dir, 'started');
    const p = await node(storage, `touch '${marker}'; sleep 30`);
    const { run } = await runningRun(p, storage, marker);
    const slow = p.drain({ graceMs: 60_000 });
    await p.stop({ graceMs: 0 });
    await slow;
    expect(await storage.runs.get('acme', run.id)).toMatchObject({ status: 'PENDING', attempt: 0, lease_owner: null });
  });

  it('refuses a negative grace', async () => {
    const p = await node(createMemoryStorage(), 'true');
    await expect(p.executor!.stop({ graceMs: -1 })).rejects.toThrow(RangeError);
  });
});
