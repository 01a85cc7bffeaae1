/**
 * What every sandbox container is held to (privileges, capabilities, limits, `/tmp`, disk
 * quota, network, user) and the notes a command gets when it fails at a limit — checked from
 * the engine's side (inspect) and from inside the container.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Dockerode from 'dockerode';
import type { ExecEvent, ExecResult, SandboxRuntime } from '@agent-platform/core';
import { createDockerRuntime, DEFAULT_CAPABILITIES } from './index.js';
import { dockerAvailable, TEST_IMAGE } from '../test-support/docker.js';

const available = await dockerAvailable();
const docker = new Dockerode();
let counter = 0;
const newId = () => `h${process.pid}-${Date.now().toString(36)}-${counter++}`;
const MiB = 1024 ** 2;

/** Bits of the capabilities kept, as /proc/self/status shows them (CapEff). */
const CAPABILITY_BITS: Record<string, number> = { CHOWN: 0, DAC_OVERRIDE: 1, FOWNER: 3, FSETID: 4, KILL: 5, SETGID: 6, SETUID: 7, NET_BIND_SERVICE: 10 };

async function run(runtime: SandboxRuntime, sandboxId: string, command: string, files?: { path: string; content: string; mode?: number }[]) {
  let stdout = '';
  let stderr = '';
  let result: ExecResult | undefined;
  const events: ExecEvent[] = [];
  for await (const event of runtime.exec(sandboxId, { command, timeoutMs: 30_000, ...(files ? { files } : {}) })) {
    events.push(event);
    if (event.type === 'stdout') stdout += event.data;
    else if (event.type === 'stderr') stderr += event.data;
    else result = event.result;
  }
  return { stdout, stderr, result: result! };
}

describe('spec validation', () => {
  it('refuses a malformed user or network, and published ports without a network', () => {
    expect(() => createDockerRuntime({ images: [{ image: TEST_IMAGE, user: 'bad user' }] })).toThrow(/user/);
    expect(() => createDockerRuntime({ images: [{ image: TEST_IMAGE, network: 'a b' }] })).toThrow(/network/);
    expect(() => createDockerRuntime({ images: [{ image: TEST_IMAGE, network: 'none', exposedPorts: [{ name: 'web', port: 80 }] }] })).toThrow(
      /cannot publish/,
    );
    expect(() => createDockerRuntime({ images: [{ image: TEST_IMAGE, user: 'agent:agent', network: 'none' }] })).not.toThrow();
  });
});

describe.runIf(available)('hardened sandboxes', { timeout: 60_000 }, () => {
  let runtime: SandboxRuntime;
  const debug: string[] = [];
  beforeAll(() => {
    runtime = createDockerRuntime({
      images: [
        TEST_IMAGE,
        { image: TEST_IMAGE, id: 'as-agent', user: 'agent' },
        { image: TEST_IMAGE, id: 'as-uid', user: '1000:1000' },
        { image: TEST_IMAGE, id: 'offline', network: 'none' },
      ],
      limits: { memoryBytes: 128 * MiB, cpus: 0.5, pids: 64 },
      tmpBytes: 8 * MiB,
      diskBytes: 512 * MiB,
      logger: { debug: (_object, message) => debug.push(String(message)), info: () => {}, warn: () => {}, error: () => {} },
    });
  });
  afterAll(async () => {
    await runtime.close();
  });

  it('drops privileges: no-new-privileges, every capability but the listed ones, no swap beyond the memory limit', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: TEST_IMAGE });
    const info = await docker.getContainer(`agent-platform-${sandboxId}`).inspect();
    expect(info.HostConfig).toMatchObject({
      SecurityOpt: ['no-new-privileges'],
      CapDrop: ['ALL'],
      CapAdd: [...DEFAULT_CAPABILITIES],
      Memory: 128 * MiB,
      MemorySwap: 128 * MiB,
      PidsLimit: 64,
      NanoCpus: 0.5e9,
      Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${8 * MiB}` },
    });
    const expected = DEFAULT_CAPABILITIES.reduce((mask, name) => mask | (1 << CAPABILITY_BITS[name]!), 0);
    const { stdout } = await run(runtime, sandboxId, 'grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status; id -u');
    expect(stdout).toContain(`CapEff:\t${expected.toString(16).padStart(16, '0')}`);
    expect(stdout).toContain(`CapBnd:\t${expected.toString(16).padStart(16, '0')}`);
    expect(stdout).toContain('NoNewPrivs:\t1');
    // The image names no user: root, as before.
    expect(stdout.trim().split('\n').at(-1)).toBe('0');
    // Dropped: raw sockets and device nodes.
    expect((await run(runtime, sandboxId, 'mknod /tmp/null c 1 3')).result.exitCode).not.toBe(0);
    await runtime.delete(sandboxId);
  });

  it('gets disk quotas (layer and volume) only where the engine supports them, and says so once when it does not', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: TEST_IMAGE });
    await runtime.start({ sandboxId: `${sandboxId}-2`, specId: TEST_IMAGE });
    const info = await docker.getContainer(`agent-platform-${sandboxId}`).inspect();
    const { Driver } = info as unknown as { Driver: string };
    if (info.HostConfig.StorageOpt?.size) {
      expect(info.HostConfig.StorageOpt).toEqual({ size: String(512 * MiB) });
    } else {
      // This engine (vfs or overlay2 not on xfs with pquota) refused it: sandboxes run without.
      expect(debug.filter((line) => line.includes('container’s disk'))).toHaveLength(1);
      expect(['vfs', 'overlay2', 'overlay', 'aufs', 'fuse-overlayfs']).toContain(Driver);
    }
    const volume = await docker.getVolume(`agent-platform-${sandboxId}`).inspect();
    if (volume.Options?.size) expect(volume.Options).toEqual({ size: String(512 * MiB) });
    else expect(debug.filter((line) => line.includes('volume’s size'))).toHaveLength(1);
    // The probe volume that found it out is gone.
    const { Volumes } = await docker.listVolumes({ filters: { name: ['quota-probe'] } });
    expect(Volumes ?? []).toEqual([]);
    await runtime.delete(sandboxId);
    await runtime.delete(`${sandboxId}-2`);
  });

  it('a size-limited /tmp fills up with "No space left on device", not the host disk', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: TEST_IMAGE });
    const { stderr, result } = await run(runtime, sandboxId, 'dd if=/dev/zero of=/tmp/fill bs=1M count=64');
    expect(result.exitCode).not.toBe(0);
    expect(stderr).toContain('No space left on device');
    expect(stderr).not.toContain('sandbox:');
    // A full /tmp does not keep a timed-out command from being killed.
    const began = Date.now();
    let timedOut: ExecResult | undefined;
    for await (const event of runtime.exec(sandboxId, { command: 'sleep 100', timeoutMs: 500 })) if (event.type === 'exit') timedOut = event.result;
    expect(timedOut).toMatchObject({ timedOut: true, exitCode: null });
    expect(Date.now() - began).toBeLessThan(5_000);
    expect((await run(runtime, sandboxId, 'ps -o args | grep -c "^sleep 100" || true')).stdout).toBe('0\n');
    expect((await run(runtime, sandboxId, 'rm /tmp/fill && echo ok')).stdout).toBe('ok\n');
    await runtime.delete(sandboxId);
  });

  it('a command killed at the memory limit ends with a note saying so', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: TEST_IMAGE });
    const { stderr, result } = await run(runtime, sandboxId, 'dd if=/dev/zero of=/dev/null bs=512M count=1');
    expect(result.exitCode).toBe(137);
    expect(stderr).toMatch(/sandbox: killed: out of memory \(the sandbox's memory limit is 128 MiB\)\n$/);
    // The next failure is not blamed on it.
    expect((await run(runtime, sandboxId, 'echo plain failure >&2; exit 3')).stderr).toBe('plain failure\n');
    await runtime.delete(sandboxId);
  });

  it('a command that runs into the pids limit ends with a note saying so', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: TEST_IMAGE });
    // busybox's sh takes no `:` as a function name: the same bomb, in the foreground.
    const { stderr, result } = await run(runtime, sandboxId, 'bomb(){ bomb|bomb; }; bomb');
    expect(result.exitCode).not.toBe(0);
    expect(stderr).toMatch(/sandbox: the process limit was reached \(64 processes\): new processes could not start\n$/);
    // What is left of the bomb when its first shell gives up (processes that fork as others exit)
    // dies out on its own within moments; the sandbox then runs commands again.
    const deadline = Date.now() + 15_000;
    let next = await run(runtime, sandboxId, 'echo fine');
    while (next.stdout !== 'fine\n' && Date.now() < deadline) {
      expect(next.stderr).toMatch(/can't fork/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      next = await run(runtime, sandboxId, 'echo fine');
    }
    expect(next.stdout).toBe('fine\n');
    await runtime.delete(sandboxId);
  });

  it('past its output bound a flood is read slowly: the command waits on its pipe, and still ends with its last words', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: TEST_IMAGE });
    let stderr = '';
    let result: ExecResult | undefined;
    const began = Date.now();
    const command = 'yes | head -c 33554432; echo done >&2';
    for await (const event of runtime.exec(sandboxId, { command, maxOutputBytes: 1024, timeoutMs: 30_000 })) {
      if (event.type === 'stderr') stderr += event.data;
      else if (event.type === 'exit') result = event.result;
    }
    // 32 MiB at most 16 MiB/s once past the first KiB.
    expect(Date.now() - began).toBeGreaterThan(1_500);
    expect(result).toMatchObject({ exitCode: 0, truncated: true });
    expect(stderr).toBe('done\n');
    await runtime.delete(sandboxId);
  });

  it('runs as the spec’s user, which owns the working directory and the files written for it', async () => {
    for (const specId of ['as-agent', 'as-uid']) {
      const sandboxId = newId();
      await runtime.start({ sandboxId, specId });
      const files = [{ path: '.agent/secret.json', content: '{"k":1}', mode: 0o600 }];
      const { stdout, result } = await run(
        runtime,
        sandboxId,
        'id -u; id -g; cat .agent/secret.json; echo; echo made > .agent/new && echo > top && stat -c %u .',
        files,
      );
      expect(result.exitCode).toBe(0);
      expect(stdout).toBe('1000\n1000\n{"k":1}\n1000\n');
      const info = await docker.getContainer(`agent-platform-${sandboxId}`).inspect();
      expect(info.Config.User).toBe(specId === 'as-agent' ? 'agent' : '1000:1000');
      await runtime.delete(sandboxId);
    }
  });

  it('a spec with network none has loopback only', async () => {
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: 'offline' });
    const info = await docker.getContainer(`agent-platform-${sandboxId}`).inspect();
    expect(info.HostConfig.NetworkMode).toBe('none');
    const { stdout } = await run(runtime, sandboxId, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    expect(stdout).toBe('lo\n');
    await runtime.delete(sandboxId);
  });
});
