/**
 * The warm pool on a real engine: it fills, a start takes a container made before it, the pool
 * refills, owners never share, a claimed sandbox is like a cold one to another runtime, delete
 * ends it for good, and `close()` removes what waits.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Dockerode from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDockerRuntime, DEFAULT_LIMITS, MANAGED_LABEL } from './index.js';
import { POOL_LABEL } from './warm-pool-container.js';
import { dockerAvailable, TEST_IMAGE } from '../test-support/docker.js';

const available = await dockerAvailable();
const docker = new Dockerode();
const PREFIX = `wp${process.pid}-`;
const SPEC = 'pooled';
const SIZE = 2;
/** A stall guard, ten times what filling a pool of two takes on a loaded machine. */
const STALL_MS = 60_000;
const image = { image: TEST_IMAGE, id: SPEC, env: { A: 'spec', B: 'spec', C: 'spec' }, network: 'none' };
let counter = 0;
const newId = () => `wp-${process.pid}-${counter++}`;
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const entry = pathToFileURL(path.join(here, 'index.ts')).href;

/** The idle pool containers of this file's runtimes (their names are the prefix and `_pool-`). */
async function idle(): Promise<Dockerode.ContainerInfo[]> {
  const all = await docker.listContainers({ all: true, filters: { label: [`${MANAGED_LABEL}=true`, `${POOL_LABEL}=true`] } });
  return all.filter((container) => container.Names.some((name) => name.startsWith(`/${PREFIX}_pool-`)) && container.State === 'running');
}

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const began = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - began > STALL_MS) throw new Error(`stalled waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const filled = () => until('the pool to fill', async () => ((await idle()).length >= SIZE ? idle() : undefined));

async function run(runtime: ReturnType<typeof createDockerRuntime>, sandboxId: string, command: string, env?: Record<string, string>): Promise<string> {
  let out = '';
  for await (const event of runtime.exec(sandboxId, { command, ...(env ? { env } : {}) })) {
    if (event.type === 'stdout') out += event.data;
    if (event.type === 'exit' && event.result.exitCode !== 0) throw new Error(`${command} exited ${event.result.exitCode}`);
  }
  return out;
}

describe.runIf(available)('warm pool', { timeout: 120_000 }, () => {
  const runtime = createDockerRuntime({ images: [image], namePrefix: PREFIX, warmPool: { [SPEC]: SIZE } });
  const other = createDockerRuntime({ images: [image], namePrefix: PREFIX });

  beforeAll(filled, STALL_MS + 5_000);
  afterAll(async () => {
    await runtime.close();
    await other.close();
  });

  it('serves a start from a container made before it, and refills', async () => {
    const before = new Set((await filled()).map((container) => container.Id));
    const sandboxId = newId();
    const sandbox = await runtime.start({ sandboxId, specId: SPEC, sessionApiKey: 'key-1' });
    expect(sandbox.status).toBe('RUNNING');
    const info = await docker.getContainer(`${PREFIX}${sandboxId}`).inspect();
    expect(before.has(info.Id)).toBe(true);
    const refilled = await until('a refill', async () => {
      const now = await idle();
      return now.length >= SIZE && now.some((container) => !before.has(container.Id)) ? now : undefined;
    });
    expect(refilled.map((container) => container.Id)).not.toContain(info.Id);
    await runtime.delete(sandboxId);
  });

  it('layers the environment: spec, then start (SESSION_API_KEY too), then the command', async () => {
    await filled();
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: SPEC, env: { B: 'start', C: 'start' }, sessionApiKey: 'key-2' });
    expect(await run(runtime, sandboxId, 'echo "$A $B $C $SESSION_API_KEY"', { C: 'exec' })).toBe('spec start exec key-2\n');
    // Another process (a second runtime on the same engine) sees the same.
    expect(await run(other, sandboxId, 'echo "$A $B $C $SESSION_API_KEY"')).toBe('spec start start key-2\n');
    await runtime.delete(sandboxId);
  });

  it('applies a resource factor to the claimed container, and refuses an id in use without using one up', async () => {
    const before = new Set((await filled()).map((container) => container.Id));
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: SPEC, resourceFactor: 2 });
    const info = await docker.getContainer(`${PREFIX}${sandboxId}`).inspect();
    expect(before.has(info.Id)).toBe(true);
    expect(info.HostConfig).toMatchObject({
      Memory: 2 * DEFAULT_LIMITS.memoryBytes,
      MemorySwap: 2 * DEFAULT_LIMITS.memoryBytes,
      PidsLimit: 2 * DEFAULT_LIMITS.pids,
    });
    const waiting = (await idle()).map((container) => container.Id);
    await expect(runtime.start({ sandboxId, specId: SPEC })).rejects.toMatchObject({ code: 'CONFLICT' });
    // The container it tried to claim is still waiting, under its pool name.
    const after = (await idle()).map((container) => container.Id);
    for (const id of waiting) expect(after).toContain(id);
    await runtime.delete(sandboxId);
  });

  it('never gives two owners the same container', async () => {
    await filled();
    const [first, second] = [newId(), newId()];
    await Promise.all([runtime.start({ sandboxId: first, specId: SPEC }), runtime.start({ sandboxId: second, specId: SPEC })]);
    const ids = await Promise.all([first, second].map(async (id) => (await docker.getContainer(`${PREFIX}${id}`).inspect()).Id));
    expect(new Set(ids).size).toBe(2);
    await run(runtime, first, 'echo one > mine.txt');
    await run(runtime, second, 'echo two > mine.txt');
    expect(await run(runtime, first, 'cat mine.txt; ls')).toBe('one\nmine.txt\n');
    expect(await run(runtime, second, 'cat mine.txt; ls')).toBe('two\nmine.txt\n');
    await Promise.all([runtime.delete(first), runtime.delete(second)]);
  });

  it('is a sandbox like a cold one to another runtime, which can delete it for good', async () => {
    await filled();
    const sandboxId = newId();
    await runtime.start({ sandboxId, specId: SPEC, sessionApiKey: 'key-3' });
    const info = await docker.getContainer(`${PREFIX}${sandboxId}`).inspect();
    const volumes = info.Mounts.map((mount) => mount.Name);
    expect(await other.inspect(sandboxId)).toMatchObject({ id: sandboxId, specId: SPEC, status: 'RUNNING', workingDir: '/workspace' });
    expect(await run(other, sandboxId, 'echo "$SESSION_API_KEY"; pwd')).toBe('key-3\n/workspace\n');
    await other.delete(sandboxId);
    expect((await runtime.inspect(sandboxId)).status).toBe('MISSING');
    await expect(docker.getContainer(info.Id).inspect()).rejects.toMatchObject({ statusCode: 404 });
    for (const name of [...volumes, `${PREFIX}${sandboxId}`]) await expect(docker.getVolume(name ?? '').inspect()).rejects.toMatchObject({ statusCode: 404 });
    // Not handed out again: the next start gets another container.
    const next = newId();
    await runtime.start({ sandboxId: next, specId: SPEC });
    expect((await docker.getContainer(`${PREFIX}${next}`).inspect()).Id).not.toBe(info.Id);
    await runtime.delete(next);
  });

  it('dies with its process: idle and bound claims go, a claim that is not bound stays', async () => {
    await filled();
    // A real process, SIGKILLed: no handler runs, no close(). Its pool uses a prefix of its own.
    const childPrefix = `${PREFIX}k-`;
    const [bound, free] = [newId(), newId()];
    const script = `
      const { createDockerRuntime } = await import(${JSON.stringify(entry)});
      const Dockerode = (await import('dockerode')).default;
      const docker = new Dockerode();
      const images = [${JSON.stringify(image)}];
      const runtime = createDockerRuntime({ images, namePrefix: ${JSON.stringify(childPrefix)}, warmPool: { ${JSON.stringify(SPEC)}: 3 } });
      for (;;) {
        const idle = await docker.listContainers({ filters: { name: ['^/${childPrefix}_pool-'] } });
        if (idle.length >= 3) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await runtime.start({ sandboxId: ${JSON.stringify(bound)}, specId: ${JSON.stringify(SPEC)}, boundToProcess: true });
      await runtime.start({ sandboxId: ${JSON.stringify(free)}, specId: ${JSON.stringify(SPEC)}, sessionApiKey: 'key-4' });
      console.log('READY');
      setInterval(() => {}, 60_000);
    `;
    const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('READY')) resolve();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.on('exit', (code) => reject(new Error(`the child exited (${code}):\n${output}`)));
    });
    const childIdle = await docker.listContainers({ filters: { name: [`^/${childPrefix}_pool-`] } });
    expect(childIdle.length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    const childRuntime = createDockerRuntime({ images: [image], namePrefix: childPrefix });
    try {
      await until('the dead process’s idle and bound containers to go', async () => {
        const idleLeft = await docker.listContainers({ all: true, filters: { name: [`^/${childPrefix}_pool-`] } });
        return idleLeft.length === 0 && (await childRuntime.inspect(bound)).status === 'MISSING' ? true : undefined;
      });
      expect(await childRuntime.inspect(free)).toMatchObject({ status: 'RUNNING' });
      expect(await run(childRuntime as ReturnType<typeof createDockerRuntime>, free, 'echo "$SESSION_API_KEY"')).toBe('key-4\n');
    } finally {
      await childRuntime.delete(free).catch(() => undefined);
      await childRuntime.close();
    }
  });

  it('removes its idle containers at close()', async () => {
    const mine = createDockerRuntime({ images: [image], namePrefix: PREFIX, warmPool: { [SPEC]: 1 } });
    const ours = await until('its pool to fill', async () => ((await idle()).length >= SIZE + 1 ? idle() : undefined));
    await mine.close();
    const left = new Set((await idle()).map((container) => container.Id));
    expect(ours.filter((container) => !left.has(container.Id))).toHaveLength(1);
    await runtime.close();
    expect(await idle()).toEqual([]);
  });
});

describe('warm pool settings', () => {
  it('refuses a size for a spec it does not have, or one that is not a count', () => {
    expect(() => createDockerRuntime({ images: [TEST_IMAGE], warmPool: { nope: 1 } })).toThrow(/no spec "nope"/);
    expect(() => createDockerRuntime({ images: [TEST_IMAGE], warmPool: { [TEST_IMAGE]: 1.5 } })).toThrow(/pool size/);
  });
});
