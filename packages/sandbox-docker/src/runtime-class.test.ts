/**
 * Runtime classes against the real engine: a class it lacks is refused at start, naming the
 * engine's; a spec's class wins over the runtime's; `inspect` says which one a sandbox runs
 * under; a gVisor spec that would need a network is refused.
 */
import Dockerode from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { PlatformError, type SandboxRuntime } from '@agent-platform/core';
import { createDockerRuntime } from './index.js';
import { isGvisor } from './runtime-class.js';
import { dockerAvailable, TEST_IMAGE } from '../test-support/docker.js';

const available = await dockerAvailable();
const runtimes: SandboxRuntime[] = [];
const newId = (() => {
  let counter = 0;
  return () => `rc${process.pid}-${Date.now().toString(36)}-${counter++}`;
})();

afterAll(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
});

describe('isGvisor', () => {
  it('knows gVisor by its name or its path', () => {
    expect(isGvisor('runsc', undefined)).toBe(true);
    expect(isGvisor('gvisor', '/usr/local/bin/runsc')).toBe(true);
    expect(isGvisor('runc', '/usr/bin/runc')).toBe(false);
    expect(isGvisor('kata', '/opt/kata/bin/kata-runtime')).toBe(false);
  });
});

describe.runIf(available)('runtime classes on the Docker engine', { timeout: 60_000 }, () => {
  it('refuses a class the engine lacks at start, naming the engine’s, and creates nothing', async () => {
    const runtime = createDockerRuntime({ images: [TEST_IMAGE], pull: false, runtimeClass: 'no-such-runtime' });
    runtimes.push(runtime);
    const sandboxId = newId();
    const error = await runtime.start({ sandboxId, specId: TEST_IMAGE }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ loc: ['runtimeClass'] }] });
    expect((error as Error).message).toMatch(
      /^the Docker engine has no runtime "no-such-runtime" \(it has: [^)]*runc[^)]*\); register it under "runtimes" in \/etc\/docker\/daemon\.json/,
    );
    expect((await runtime.inspect(sandboxId)).status).toBe('MISSING');
    await expect(new Dockerode().getVolume(`agent-platform-${sandboxId}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('runs a spec under its own class over the runtime’s, and inspect says which', async () => {
    const runtime = createDockerRuntime({
      images: [TEST_IMAGE, { image: TEST_IMAGE, id: 'plain', runtimeClass: 'runc', network: 'none' }],
      pull: false,
      runtimeClass: 'no-such-runtime',
    });
    runtimes.push(runtime);
    const sandboxId = newId();
    expect(await runtime.start({ sandboxId, specId: 'plain' })).toMatchObject({ status: 'RUNNING', runtimeClass: 'runc' });
    expect((await new Dockerode().getContainer(`agent-platform-${sandboxId}`).inspect()).HostConfig.Runtime).toBe('runc');
  });

  it('refuses a malformed class when the runtime is built, and a gVisor spec that publishes ports at start', async () => {
    expect(() => createDockerRuntime({ images: [TEST_IMAGE], runtimeClass: 'run sc' })).toThrow(
      /a runtime class is the name of a runtime registered with the engine/,
    );
    expect(() => createDockerRuntime({ images: [{ image: TEST_IMAGE, runtimeClass: '--privileged' }] })).toThrow(/a runtime class is the name/);
    const info = (await new Dockerode().info()) as { Runtimes?: Record<string, unknown> };
    if (!info.Runtimes?.runsc) return; // the engine has no gVisor: nothing more to refuse here
    const runtime = createDockerRuntime({ images: [{ image: TEST_IMAGE, runtimeClass: 'runsc', exposedPorts: [{ name: 'web', port: 80 }] }], pull: false });
    runtimes.push(runtime);
    await expect(runtime.start({ sandboxId: newId(), specId: TEST_IMAGE })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: `gVisor (runsc) sandboxes have no network: spec "${TEST_IMAGE}" cannot publish ports`,
    });
  });
});
