/**
 * A run on the platform claims its sandbox from the Docker runtime's warm pool: the run's start
 * (bound to the worker, with a session API key, at the owner's resource factor) is one a pooled
 * container serves. The agent prints its container's host name, which the engine set when it
 * created the container: it must be one of the containers waiting in the pool before the run.
 *
 * Docker: in CI (`.ci/run` starts an engine and builds the image) this must run, not skip.
 */
import Dockerode from 'dockerode';
import { createCommandAgentRunner, type SandboxRuntime } from '@agent-platform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../packages/http/test-support/harness.js';
import { createDockerRuntime } from '../../packages/sandbox-docker/src/index.js';
import { serverRuntimes, TEST_IMAGE } from './support/runtimes.js';

const onDocker = (await serverRuntimes('a run from the warm pool')).some((runtime) => runtime.name === 'docker');
const docker = new Dockerode();
const PREFIX = `wprun${process.pid}-`;
/** A stall guard: ten times what filling a pool of one takes on a loaded machine. */
const STALL_MS = 60_000;

describe.runIf(onDocker)('a run on the Docker runtime with a warm pool', { timeout: 120_000 }, () => {
  let harness: Harness;
  let runtime: SandboxRuntime;

  const api = async (method: string, route: string, json?: unknown) => {
    const response = await harness.request(method, route, json === undefined ? {} : { json });
    if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${response.text}`);
    return response.json;
  };
  const waiting = async () => (await docker.listContainers({ filters: { name: [`^/${PREFIX}_pool-`] } })).map((container) => container.Id);

  beforeAll(async () => {
    runtime = createDockerRuntime({ images: [{ image: TEST_IMAGE, network: 'none' }], namePrefix: PREFIX, warmPool: { [TEST_IMAGE]: 1 }, pull: false });
    harness = await startHarness('node', {
      platform: {
        runtime,
        agent: createCommandAgentRunner({ command: 'hostname; [ -n "$SESSION_API_KEY" ] && echo "key set"' }),
        executor: { concurrency: 2, perOrgConcurrency: 2, pollIntervalMs: 100, retryBackoffMs: 100 },
      },
    });
    await harness.platform.start();
  });
  afterAll(async () => {
    await harness?.platform.stop();
    await harness?.close();
    await runtime?.close();
  });

  it('starts the run in a container that waited in the pool, then removes it', async () => {
    const began = Date.now();
    let pooled = await waiting();
    while (pooled.length === 0) {
      if (Date.now() - began > STALL_MS) throw new Error('the warm pool did not fill');
      await new Promise((resolve) => setTimeout(resolve, 50));
      pooled = await waiting();
    }
    const created = await api('POST', '/api/automation/v1', { name: 'pooled', trigger: { type: 'event', source: 'ci', on: 'pooled' }, instructions: 'pooled' });
    const dispatched = await api('POST', `/api/automation/v1/${created.id}/dispatch`, { payload: {} });
    const runId = dispatched.run_id ?? dispatched.id;
    let run: any;
    for (;;) {
      const runs = (await api('GET', `/api/automation/v1/${created.id}/runs`)).runs as any[];
      run = runs.find((candidate) => candidate.id === runId) ?? runs[0];
      if (run && ['COMPLETED', 'FAILED', 'CANCELLED', 'SKIPPED'].includes(run.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(run).toMatchObject({ status: 'COMPLETED', error_detail: null });
    const outputs = ((await api('GET', `/api/v1/app-conversations/${run.conversation_id}/events`)).items as any[])
      .filter((event) => event.kind === 'agent_output')
      .map((event) => event.message as string);
    const [hostname, key] = outputs;
    expect(pooled.some((id) => hostname && id.startsWith(hostname))).toBe(true);
    expect(key).toBe('key set');
    expect((await api('GET', `/api/v1/sandboxes?id=${run.sandbox_id}`))[0]).toMatchObject({ status: 'MISSING' });
  });
});
