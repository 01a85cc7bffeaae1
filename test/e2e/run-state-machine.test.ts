/**
 * Runs are one state machine, on memory, PGlite and PostgreSQL storage, with an
 * API-only "process" and worker "processes" over one backend:
 * - the two lost cancels found by testing from outside — a cancel made while the worker's sandbox
 *   was starting ended COMPLETED (the worker wrote back its stale copy of the run); a cancel
 *   followed by a transient sandbox failure ended COMPLETED on attempt 2 (the retry wrote PENDING);
 * - a cancel racing each other transition the executor makes: whenever the cancel is answered
 *   CANCELLED, the run ends CANCELLED and stays so;
 * - the per-org limit holds across workers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal, RunQueue, SandboxRuntime, StorageAdapter } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { makeRunRecord } from '@agent-platform/testing/fixtures';
import { BACKENDS, Gate, startNode, until, type RunNode, type SharedBackend } from './support/run-nodes.js';

const alice: Principal = { userId: 'alice', orgId: 'acme' };
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function backendOf(factory: () => Promise<SharedBackend>): Promise<SharedBackend> {
  const backend = await factory();
  cleanups.push(() => backend.close());
  return backend;
}

async function node(backend: SharedBackend, options: Parameters<typeof startNode>[1] = {}): Promise<RunNode> {
  const started = await startNode(backend, options);
  cleanups.push(() => started.stop());
  return started;
}

/** A process runtime whose `start` can be held at a gate, or made to fail, and counts its calls. */
function runtimeWith(before: (call: number) => Promise<void>): SandboxRuntime & { starts: () => number; live: () => Promise<number> } {
  const inner = createProcessRuntime();
  cleanups.push(() => inner.close());
  let calls = 0;
  const started = new Set<string>();
  const deleted = new Set<string>();
  return {
    ...inner,
    async start(input) {
      calls += 1;
      await before(calls);
      const sandbox = await inner.start(input);
      started.add(input.sandboxId);
      return sandbox;
    },
    async delete(sandboxId) {
      deleted.add(sandboxId);
      return inner.delete(sandboxId);
    },
    starts: () => calls,
    live: async () => [...started].filter((id) => !deleted.has(id)).length,
  };
}

async function createAutomation(api: RunNode): Promise<string> {
  const automation = await api.platform.automations.create(alice, { name: 'a', trigger: { type: 'event', source: 'ci', on: 'x' }, instructions: 'go' });
  return automation.id;
}

const getRun = (api: RunNode, runId: string) => api.platform.automations.getRun(alice, runId);

/** The run stays `status` for a while: nothing moves it afterwards. */
async function staysFinal(api: RunNode, runId: string, status: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect((await getRun(api, runId)).status).toBe(status);
}

/** Waits until no executor runs the run any more. */
async function settled(worker: RunNode, runId: string): Promise<void> {
  await until(
    'executor let go of the run',
    async () => worker.platform.executor!.isExecuting(runId),
    (executing) => !executing,
  );
}

/**
 * Once a step reached its gate: cancels through `api` (answered CANCELLED), lets the step go on,
 * and checks that the run ends CANCELLED and stays so.
 */
async function cancelAtGate(api: RunNode, worker: RunNode, runId: string, gate: Gate): Promise<void> {
  await gate.reached;
  expect((await api.platform.automations.cancelRun(alice, runId)).status).toBe('CANCELLED');
  gate.open();
  await settled(worker, runId);
  await staysFinal(api, runId, 'CANCELLED');
}

/** A storage whose writes of one kind wait at a gate first. */
function holding(storage: StorageAdapter, gate: Gate, what: 'conversation-insert' | 'attach'): StorageAdapter {
  if (what === 'conversation-insert') {
    return {
      ...storage,
      conversations: {
        ...storage.conversations,
        insert: async (record) => {
          await gate.wait();
          return storage.conversations.insert(record);
        },
      },
    };
  }
  return {
    ...storage,
    runs: {
      ...storage.runs,
      transition: async (orgId, id, guard, patch) => {
        if (patch.conversation_id) await gate.wait();
        return storage.runs.transition(orgId, id, guard, patch);
      },
    },
  };
}

function queueHolding(gate: Gate, op: 'complete' | 'release'): (queue: RunQueue) => RunQueue {
  return (queue) => ({
    claim: (request) => queue.claim(request),
    renew: (owner, runs, until) => queue.renew(owner, runs, until),
    recover: (now, max) => queue.recover(now, max),
    complete: async (owner, run, completion) => {
      if (op === 'complete') await gate.wait();
      return queue.complete(owner, run, completion);
    },
    release: async (owner, run, release) => {
      if (op === 'release') await gate.wait();
      return queue.release(owner, run, release);
    },
  });
}

describe.each(BACKENDS.map((factory) => [factory.name.replace(/Backend$/, ''), factory] as const))('runs as one state machine on %s', (_name, factory) => {
  it('a cancel made through the API process while the worker’s sandbox is still starting ends CANCELLED, not COMPLETED', async () => {
    const backend = await backendOf(factory);
    const gate = new Gate();
    const runtime = runtimeWith(() => gate.wait());
    const worker = await node(backend, { runtime });
    const api = await node(backend, { execute: false });
    const run = await api.platform.automations.dispatch(alice, await createAutomation(api), {});
    await cancelAtGate(api, worker, run.id, gate);
    expect(await runtime.live()).toBe(0);
  });

  it('a cancel followed by a transient sandbox failure ends CANCELLED, with no second attempt', async () => {
    const backend = await backendOf(factory);
    const gate = new Gate();
    const runtime = runtimeWith(async (call) => {
      if (call === 1) {
        await gate.wait();
        throw new Error('engine busy');
      }
    });
    const worker = await node(backend, { runtime });
    const run = await worker.platform.automations.dispatch(alice, await createAutomation(worker), {});
    await cancelAtGate(worker, worker, run.id, gate);
    expect((await getRun(worker, run.id)).attempt).toBe(1);
    expect(runtime.starts()).toBe(1);
  });

  it('a cancel before any worker claims the run: it never starts', async () => {
    const backend = await backendOf(factory);
    const api = await node(backend, { execute: false });
    const run = await api.platform.automations.dispatch(alice, await createAutomation(api), {});
    await api.platform.automations.cancelRun(alice, run.id);
    const runtime = runtimeWith(async () => {});
    const worker = await node(backend, { runtime });
    await worker.platform.executor!.idle();
    await staysFinal(api, run.id, 'CANCELLED');
    expect(runtime.starts()).toBe(0);
    expect((await getRun(api, run.id)).attempt).toBe(0);
  });

  for (const step of ['conversation-insert', 'attach'] as const) {
    it(`a cancel while the worker ${step === 'attach' ? 'attaches the conversation to the run' : 'stores the conversation'} ends CANCELLED, the conversation stopped`, async () => {
      const backend = await backendOf(factory);
      const gate = new Gate();
      const runtime = runtimeWith(async () => {});
      const worker = await node(backend, { runtime, wrapStorage: (storage) => holding(storage, gate, step) });
      const api = await node(backend, { execute: false });
      const run = await api.platform.automations.dispatch(alice, await createAutomation(api), {});
      await cancelAtGate(api, worker, run.id, gate);
      expect(await runtime.live()).toBe(0);
      const conversations = await api.platform.conversations.search(alice, { limit: 10 });
      expect(conversations.items.map((conversation) => conversation.execution_status)).toEqual(['stopped']);
    });
  }

  it('a cancel while the agent works stops it: CANCELLED, the conversation stopped', async () => {
    const backend = await backendOf(factory);
    const runtime = runtimeWith(async () => {});
    const worker = await node(backend, { runtime, agentCommand: 'echo started; sleep 30' });
    const api = await node(backend, { execute: false });
    const run = await api.platform.automations.dispatch(alice, await createAutomation(api), {});
    const running = await until(
      'agent started',
      () => getRun(api, run.id),
      (current) => Boolean(current.conversation_id),
    );
    await until(
      'agent output',
      () => api.storage.conversations.listEvents(running.conversation_id!, { limit: 10 }),
      (page) => page.items.some((event) => event.kind === 'agent_output'),
    );
    const began = Date.now();
    await api.platform.automations.cancelRun(alice, run.id);
    const conversation = await until(
      'stopped',
      () => api.storage.conversations.get(running.conversation_id!),
      (current) => current?.execution_status === 'stopped',
    );
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(conversation?.sandbox_status).toBe('MISSING');
    await settled(worker, run.id);
    await staysFinal(api, run.id, 'CANCELLED');
  });

  it('a cancel racing the final write: the run ends as the cancel was answered', async () => {
    const backend = await backendOf(factory);
    const gate = new Gate();
    const worker = await node(backend, { runtime: runtimeWith(async () => {}), wrapQueue: queueHolding(gate, 'complete') });
    const api = await node(backend, { execute: false });
    const run = await api.platform.automations.dispatch(alice, await createAutomation(api), {});
    await cancelAtGate(api, worker, run.id, gate);
  });

  it('a cancel racing a retry’s hand-back: no second attempt', async () => {
    const backend = await backendOf(factory);
    const gate = new Gate();
    const runtime = runtimeWith(async (call) => {
      if (call === 1) throw new Error('engine busy');
    });
    const worker = await node(backend, { runtime, wrapQueue: queueHolding(gate, 'release') });
    const run = await worker.platform.automations.dispatch(alice, await createAutomation(worker), {});
    await cancelAtGate(worker, worker, run.id, gate);
    expect(runtime.starts()).toBe(1);
  });

  it('a cancel racing the recovery of a dead worker’s run: CANCELLED whenever the cancel was answered so', async () => {
    const backend = await backendOf(factory);
    const api = await node(backend, { execute: false });
    const automationId = await createAutomation(api);
    const lapsed = makeRunRecord({
      org_id: alice.orgId,
      automation_id: automationId,
      delivery_id: null,
      status: 'RUNNING',
      attempt: 1,
      lease_owner: 'wkr_dead',
      lease_expires_at: new Date(0).toISOString(),
    });
    await api.storage.runs.insertMany([lapsed]);
    const [cancel] = await Promise.allSettled([api.platform.automations.cancelRun(alice, lapsed.id), api.storage.runQueue.recover(new Date(), 3)]);
    expect(cancel.status).toBe('fulfilled');
    const runtime = runtimeWith(async () => {});
    const worker = await node(backend, { runtime });
    await worker.platform.executor!.idle();
    await staysFinal(api, lapsed.id, 'CANCELLED');
    expect(runtime.starts()).toBe(0);
  });

  it('per-org limit 1 with two workers: never two of the org’s runs at once, and every run completes', async () => {
    const backend = await backendOf(factory);
    const log: { runId: string; at: 'start' | 'end'; time: number }[] = [];
    const tracking = (): SandboxRuntime => {
      const inner = runtimeWith(async () => {});
      return {
        ...inner,
        async start(input) {
          log.push({ runId: input.sandboxId, at: 'start', time: Date.now() });
          return inner.start(input);
        },
        async delete(sandboxId) {
          log.push({ runId: sandboxId, at: 'end', time: Date.now() });
          return inner.delete(sandboxId);
        },
      };
    };
    const limits = { perOrgConcurrency: 1, concurrency: 4 };
    const workers = [
      await node(backend, { runtime: tracking(), agentCommand: 'sleep 0.1', executor: limits }),
      await node(backend, { runtime: tracking(), agentCommand: 'sleep 0.1', executor: limits }),
    ];
    const api = await node(backend, { execute: false });
    const automationId = await createAutomation(api);
    const runs = [];
    for (let n = 0; n < 6; n++) runs.push(await api.platform.automations.dispatch(alice, automationId, {}));
    for (const run of runs)
      await until(
        'completed',
        () => getRun(api, run.id),
        (current) => current.status === 'COMPLETED',
        30_000,
      );
    // Sandboxes stand for runs here: at no moment were two of the org's alive.
    let alive = 0;
    let most = 0;
    for (const entry of [...log].sort((a, b) => a.time - b.time || (a.at === 'end' ? -1 : 1))) {
      alive += entry.at === 'start' ? 1 : -1;
      most = Math.max(most, alive);
    }
    expect(most).toBe(1);
    expect(log.filter((entry) => entry.at === 'start')).toHaveLength(6);
    expect(workers.length).toBe(2);
  });
});
