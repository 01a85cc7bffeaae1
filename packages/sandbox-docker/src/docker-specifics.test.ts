import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Dockerode from 'dockerode';
import { PlatformError, type ExecEvent, type SandboxRuntime } from '@agent-platform/core';
import { createDockerRuntime, INSTANCE_LABEL, MANAGED_LABEL, SANDBOX_ID_LABEL, statusOf } from './index.js';
import { dockerAvailable, TEST_IMAGE } from '../test-support/docker.js';

const available = await dockerAvailable();
const docker = new Dockerode();
let counter = 0;
const newId = () => `t${process.pid}-${Date.now().toString(36)}-${counter++}`;

async function run(runtime: SandboxRuntime, sandboxId: string, command: string): Promise<string> {
  let stdout = '';
  for await (const event of runtime.exec(sandboxId, { command })) if (event.type === 'stdout') stdout += event.data;
  return stdout;
}

async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('statusOf', () => {
  const state = (Status: string, extra: Partial<Dockerode.ContainerInspectInfo['State']> = {}) =>
    ({ Status, Running: Status === 'running', Paused: Status === 'paused', ...extra }) as Dockerode.ContainerInspectInfo['State'];
  it('maps Docker states to sandbox statuses', () => {
    expect(statusOf(state('running'))).toBe('RUNNING');
    expect(statusOf(state('paused'))).toBe('PAUSED');
    expect(statusOf(state('exited'))).toBe('PAUSED');
    expect(statusOf(state('created'))).toBe('STARTING');
    expect(statusOf(state('restarting'))).toBe('STARTING');
    expect(statusOf(state('dead'))).toBe('ERROR');
    expect(statusOf(state('removing'))).toBe('ERROR');
  });
});

describe('an unreachable engine', () => {
  it('answers UNAVAILABLE, not a crash', async () => {
    const runtime = createDockerRuntime({ images: [TEST_IMAGE], docker: new Dockerode({ socketPath: '/nonexistent/docker.sock' }) });
    expect((await rejection(runtime.listSpecs())).code).toBe('UNAVAILABLE');
    expect((await rejection(runtime.inspect('sbx-1'))).code).toBe('UNAVAILABLE');
    await runtime.close();
  });

  it('refuses bad configuration', () => {
    expect(() => createDockerRuntime({ images: [] })).toThrow(PlatformError);
    expect(() => createDockerRuntime({ images: [{ image: TEST_IMAGE, workingDir: 'relative' }] })).toThrow(/absolute/);
    expect(() => createDockerRuntime({ images: [TEST_IMAGE, TEST_IMAGE] })).toThrow(/twice/);
  });
});

describe.runIf(available)('Docker runtime specifics', { timeout: 60_000 }, () => {
  let runtime: SandboxRuntime;
  beforeAll(() => {
    runtime = createDockerRuntime({ images: [TEST_IMAGE], limits: { memoryBytes: 256 * 1024 ** 2, cpus: 0.5, pids: 100 } });
  });
  afterAll(async () => {
    await runtime.close();
  });

  it('labels the container and its volume, applies limits scaled by the resource factor, and sets the session key', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: TEST_IMAGE, resourceFactor: 2, sessionApiKey: 'session-key-123' });
    const info = await docker.getContainer(`agent-platform-${sandboxId}`).inspect();
    expect(info.Config.Labels).toMatchObject({ [MANAGED_LABEL]: 'true', [SANDBOX_ID_LABEL]: sandboxId, [INSTANCE_LABEL]: expect.any(String) });
    expect(info.HostConfig).toMatchObject({ Memory: 512 * 1024 ** 2, NanoCpus: 1e9, PidsLimit: 200 });
    const volume = await docker.getVolume(`agent-platform-${sandboxId}`).inspect();
    expect(volume.Labels).toMatchObject({ [MANAGED_LABEL]: 'true', [SANDBOX_ID_LABEL]: sandboxId });
    expect(await run(runtime, sandboxId, 'echo "$SESSION_API_KEY"; cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max')).toBe(
      'session-key-123\n200\n',
    );
    await runtime.delete(sandboxId);
    await expect(docker.getVolume(`agent-platform-${sandboxId}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('caps CPUs at what the engine has', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: TEST_IMAGE, resourceFactor: 64 });
    const info = await docker.getContainer(`agent-platform-${sandboxId}`).inspect();
    const { NCPU } = await docker.info();
    expect(info.HostConfig.NanoCpus).toBe(Math.min(0.5 * 64, NCPU) * 1e9);
    await runtime.delete(sandboxId);
  });

  it('never touches a container it did not create, even with its name', async () => {
    const sandboxId = newId();
    const foreign = await docker.createContainer({ name: `agent-platform-${sandboxId}`, Image: TEST_IMAGE, Cmd: ['sleep', '60'] });
    try {
      await foreign.start();
      expect((await runtime.inspect(sandboxId)).status).toBe('MISSING');
      expect((await rejection(runtime.pause(sandboxId))).code).toBe('NOT_FOUND');
      expect((await rejection(runtime.delete(sandboxId))).code).toBe('NOT_FOUND');
      expect((await rejection(runtime.start({ sandboxId, specId: TEST_IMAGE }))).code).toBe('CONFLICT');
      expect((await foreign.inspect()).State.Running).toBe(true);
    } finally {
      await foreign.remove({ force: true });
    }
  });

  it('resumes an exited container with its files, and a new runtime finds sandboxes by label', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: TEST_IMAGE });
    await run(runtime, sandboxId, 'echo kept > notes.txt');
    await docker.getContainer(`agent-platform-${sandboxId}`).stop({ t: 1 });
    expect((await runtime.inspect(sandboxId)).status).toBe('PAUSED');

    const other = createDockerRuntime({ images: [TEST_IMAGE] });
    expect((await other.inspect(sandboxId)).status).toBe('PAUSED');
    await other.resume(sandboxId);
    expect((await other.inspect(sandboxId)).status).toBe('RUNNING');
    expect(await run(other, sandboxId, 'cat notes.txt')).toBe('kept\n');
    // close() removes only what that instance created.
    await other.close();
    expect((await runtime.inspect(sandboxId)).status).toBe('RUNNING');
    await runtime.delete(sandboxId);
  });

  it('runs a spec’s own command and publishes its ports as exposed URLs', async () => {
    const ports = createDockerRuntime({
      images: [{ image: TEST_IMAGE, id: 'web', command: ['httpd', '-f', '-p', '8080', '-h', '/workspace'], exposedPorts: [{ name: 'web', port: 8080 }] }],
    });
    try {
      const sandboxId = newId();
      const started = await ports.start({ sandboxId, specId: 'web' });
      expect(started.exposedUrls).toEqual([{ name: 'web', port: expect.any(Number), url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) }]);
      const events: ExecEvent[] = [];
      for await (const event of ports.exec(sandboxId, { command: 'true', files: [{ path: 'index.html', content: 'hello from the sandbox' }] }))
        events.push(event);
      const url = started.exposedUrls[0]!.url;
      let body = '';
      for (let attempt = 0; attempt < 50 && body === ''; attempt++) {
        body = await fetch(`${url}/index.html`).then(
          (response) => response.text(),
          () => new Promise<string>((resolve) => setTimeout(() => resolve(''), 100)),
        );
      }
      expect(body).toBe('hello from the sandbox');
    } finally {
      await ports.close();
    }
  });
});
