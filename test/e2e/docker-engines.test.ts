/**
 * Several Docker engines, for real: this machine's engine and a second dockerd of this file's own
 * (`scripts/docker-second-engine.sh agent-platform-docker-e2e`, started here and stopped at the
 * end, so the shared second engine stays up for the tests beside this one), behind two
 * platforms on one storage — A runs the runs, B
 * only answers the API (another process's stand-in, with a runtime object of its own that never
 * started anything). Sandboxes land on both engines; B's API reaches a sandbox A started on
 * either; the second engine's dockerd is killed mid-run: only the run on it fails, it is retried
 * on the first engine and completes with the loss recorded, the engine's sandbox reads ERROR,
 * and once the engine is back new sandboxes go to it again.
 *
 * Docker: in CI (`.ci/run` starts both engines) this must run, not skip.
 */
import { randomBytes } from 'node:crypto';
import Dockerode from 'dockerode';
import { createAesGcmSecretBox, createCommandAgentRunner, generateSecretKey, type SandboxRuntime } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../packages/http/test-support/harness.js';
import { createDockerRuntime } from '../../packages/sandbox-docker/src/index.js';
import { FIRST_DOCKER_HOST, startEngine, stopEngine, TEST_IMAGE, twoEnginesAvailable } from '../../packages/sandbox-docker/test-support/second-engine.js';

const available = await twoEnginesAvailable('several Docker engines');
/** The engine this file stops on purpose: one of its own, so the shared second engine stays up for the tests beside it. */
const OWN_ENGINE = 'agent-platform-docker-e2e';
/** The agent says it started, then waits until the test lets it finish (a file in its working directory). */
const AGENT = 'echo started; while [ ! -e release ]; do sleep 0.1; done; echo done';
const TERMINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'];

describe.runIf(available)('several Docker engines', { timeout: 120_000 }, () => {
  // This file's own name prefix: placement counts these sandboxes only, whatever else runs.
  const namePrefix = `ap-e2e-engines-${randomBytes(3).toString('hex')}-`;
  const storage = createMemoryStorage();
  const secrets = createAesGcmSecretBox({ keys: { k: generateSecretKey() } });
  const spec = { image: TEST_IMAGE, network: 'none' };
  let runtimeA: SandboxRuntime;
  let runtimeB: SandboxRuntime;
  let a: Harness;
  let b: Harness;
  let killed = false;
  let ownDocker: Dockerode;
  const kept: Record<'first' | 'second', string> = { first: '', second: '' };

  const api = async (harness: Harness, method: string, route: string, json?: unknown) => {
    const response = await harness.request(method, route, json === undefined ? {} : { json });
    if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${response.text}`);
    return response.json;
  };
  const sandboxes = async (harness: Harness, ...ids: string[]) =>
    (await api(harness, 'GET', `/api/v1/sandboxes?${ids.map((id) => `id=${id}`).join('&')}`)) as ({ status: string; engine: string | null } | null)[];
  const runOf = async (automationId: string, runId: string) =>
    ((await api(a, 'GET', `/api/automation/v1/${automationId}/runs`)).runs as any[]).find((run) => run.id === runId);
  const eventsOf = async (conversationId: string) => (await api(a, 'GET', `/api/v1/app-conversations/${conversationId}/events`)).items as any[];
  /** Polls until `check` gives something (a stall guard: the test's timeout bounds it). */
  const until = async <T>(check: () => Promise<T | null | undefined | false>): Promise<T> => {
    for (;;) {
      const value = await check();
      if (value) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** The run once its agent has said it started in a sandbox of `attempt`. */
  const started = (automationId: string, runId: string, attempt: number) =>
    until(async () => {
      const run = await runOf(automationId, runId);
      if (!run?.conversation_id || run.attempt !== attempt || run.status !== 'RUNNING') return null;
      const outputs = (await eventsOf(run.conversation_id)).filter((event) => event.kind === 'agent_output' && event.message === 'started');
      return outputs.length === attempt ? run : null;
    });
  /**
   * Lets the agent in `sandboxId` finish; that its run then completes is the proof. What the
   * touch's exec says is not: the run may end and remove the sandbox first, and on a loaded
   * engine an exec can end before the engine records its exit code (`exitCode: null`).
   */
  const release = async (sandboxId: string) => {
    for await (const event of runtimeA.exec(sandboxId, { command: 'touch release' })) void event;
  };
  const finished = (automationId: string, runId: string) =>
    until(async () => {
      const run = await runOf(automationId, runId);
      return run && TERMINAL.includes(run.status) ? run : null;
    });

  beforeAll(async () => {
    ownDocker = new Dockerode({ socketPath: (await startEngine(OWN_ENGINE)).slice('unix://'.length) });
    const engines = [`first=${FIRST_DOCKER_HOST}`, { name: 'second', docker: ownDocker }];
    runtimeA = createDockerRuntime({ images: [spec], engines, namePrefix, pull: false });
    runtimeB = createDockerRuntime({ images: [spec], engines, namePrefix, pull: false });
    a = await startHarness('node', {
      storage,
      platform: {
        secrets,
        runtime: runtimeA,
        agent: createCommandAgentRunner({ command: AGENT }),
        executor: { concurrency: 4, perOrgConcurrency: 4, pollIntervalMs: 100, retryBackoffMs: 100, maxAttempts: 3 },
      },
    });
    await a.platform.start();
    // B is never started: no executor, only its API.
    b = await startHarness('node', { storage, platform: { secrets, runtime: runtimeB } });
  });

  afterAll(async () => {
    if (killed) await startEngine(OWN_ENGINE);
    for (const id of Object.values(kept)) if (id) await a.request('DELETE', `/api/v1/sandboxes/${id}`);
    await a?.close();
    await b?.close();
    await a?.platform.stop();
    await Promise.all([runtimeA?.close(), runtimeB?.close()]);
    // Its sandboxes gone, the engine stops at once; it is started again next time (its image kept).
    await stopEngine(OWN_ENGINE, 'SIGTERM');
  });

  it('places sandboxes on both engines, and another process’s API reaches each: status, engine, pause, resume, delete', async () => {
    const first = await api(a, 'POST', '/api/v1/sandboxes', {});
    const second = await api(a, 'POST', '/api/v1/sandboxes', {});
    expect([first.engine, second.engine]).toEqual(['first', 'second']);
    expect(await sandboxes(b, first.id, second.id)).toEqual([
      expect.objectContaining({ status: 'RUNNING', engine: 'first' }),
      expect.objectContaining({ status: 'RUNNING', engine: 'second' }),
    ]);
    await api(b, 'POST', `/api/v1/sandboxes/${second.id}/pause`);
    expect((await runtimeA.inspect(second.id)).status).toBe('PAUSED');
    await api(b, 'POST', `/api/v1/sandboxes/${second.id}/resume`);
    expect((await sandboxes(a, second.id))[0]).toMatchObject({ status: 'RUNNING' });
    await api(b, 'DELETE', `/api/v1/sandboxes/${second.id}`);
    expect(await runtimeA.inspect(second.id)).toMatchObject({ status: 'MISSING' });
    // One sandbox kept on each engine: the runs below are placed first, then second.
    kept.first = first.id;
    kept.second = (await api(a, 'POST', '/api/v1/sandboxes', {})).id;
    expect((await sandboxes(b, kept.second))[0]).toMatchObject({ engine: 'second' });
  });

  it('an engine that goes away fails only its run, which is retried on the other engine and completes; its sandboxes read ERROR', async () => {
    expect(kept.second).not.toBe('');
    const automation = await api(a, 'POST', '/api/automation/v1', {
      name: 'engines',
      trigger: { type: 'event', source: 'ci', on: 'engines.test' },
      instructions: 'wait for the release',
      timeout_seconds: 60,
    });
    const dispatch = async () => {
      const dispatched = await api(a, 'POST', `/api/automation/v1/${automation.id}/dispatch`, { payload: {} });
      return (dispatched.run_id ?? dispatched.id) as string;
    };
    const onFirstId = await dispatch();
    const onFirst = await started(automation.id, onFirstId, 1);
    const onSecondId = await dispatch();
    const onSecond = await started(automation.id, onSecondId, 1);
    expect(await sandboxes(b, onFirst.sandbox_id, onSecond.sandbox_id)).toEqual([
      expect.objectContaining({ engine: 'first' }),
      expect.objectContaining({ engine: 'second' }),
    ]);

    // The second engine goes away at once (SIGKILL: no shutdown, the socket stops answering).
    killed = true;
    await stopEngine(OWN_ENGINE, 'SIGKILL');

    // The run on it is retried, in a sandbox on the first engine; the one on the first runs on.
    const retried = await started(automation.id, onSecondId, 2);
    expect(retried.sandbox_id).not.toBe(onSecond.sandbox_id);
    expect((await sandboxes(b, retried.sandbox_id))[0]).toMatchObject({ status: 'RUNNING', engine: 'first' });
    expect((await runOf(automation.id, onFirstId)).status).toBe('RUNNING');
    await release(onFirst.sandbox_id);
    await release(retried.sandbox_id);
    expect(await finished(automation.id, onFirstId)).toMatchObject({ status: 'COMPLETED', attempt: 1, error_detail: null });
    expect(await finished(automation.id, onSecondId)).toMatchObject({ status: 'COMPLETED', attempt: 2, error_detail: null });

    // The reason is recorded in the run's conversation: the first attempt's end, then the second's start.
    const events = await eventsOf(retried.conversation_id);
    const ends = events.filter((event) => event.kind === 'status').map((event) => event.data.reason);
    expect(ends[0]).toMatch(/^the sandbox was lost: its Docker engine "second" is unreachable/);
    expect(ends.at(-1)).toBeNull();
    expect(events.find((event) => event.data?.type === 'run_resumed')).toMatchObject({ data: { attempt: 2, fresh_sandbox: true } });
    console.log(`engine lost: ${ends[0]}`);

    // A sandbox kept on the lost engine reads ERROR, its engine named; the first engine's is untouched.
    expect(await sandboxes(b, kept.second, kept.first)).toEqual([
      expect.objectContaining({ status: 'ERROR', engine: 'second' }),
      expect.objectContaining({ status: 'RUNNING', engine: 'first' }),
    ]);
    expect((await a.request('POST', `/api/v1/sandboxes/${kept.second}/pause`)).status).toBe(503);

    // Back again: its sandbox is there, stopped with the engine (PAUSED: resume starts it), and
    // new sandboxes go to it again.
    await startEngine(OWN_ENGINE);
    killed = false;
    expect((await sandboxes(b, kept.second))[0]).toMatchObject({ engine: 'second', status: 'PAUSED' });
    await api(b, 'POST', `/api/v1/sandboxes/${kept.second}/resume`);
    expect((await sandboxes(a, kept.second))[0]).toMatchObject({ status: 'RUNNING' });
    const after = [await api(a, 'POST', '/api/v1/sandboxes', {}), await api(a, 'POST', '/api/v1/sandboxes', {})];
    for (const sandbox of after) await api(a, 'DELETE', `/api/v1/sandboxes/${sandbox.id}`);
    expect(after.map((sandbox) => sandbox.engine)).toEqual(['first', 'second']);
    // The engine removed the lost run's container as it came back; the runtime, seeing it answer
    // again, removes the container's volume.
    const runVolumes = async () =>
      ((await ownDocker.listVolumes({ filters: { label: [`dev.agent-platform.sandbox-id=${onSecond.sandbox_id}`] } })).Volumes ?? []).map(
        (volume) => volume.Name,
      );
    // A stall guard, ten times what the sweep takes on a loaded machine.
    const sweptBy = Date.now() + 20_000;
    while ((await runVolumes()).length > 0 && Date.now() < sweptBy) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await runVolumes(), 'the lost run’s volume, left on the engine that came back').toEqual([]);
  });
});
