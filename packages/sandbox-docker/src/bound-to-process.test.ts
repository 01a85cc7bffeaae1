/**
 * `boundToProcess`: a sandbox started with it dies with the process that started it, however
 * that process dies. The process is a real child Node process here, SIGKILLed (no handler runs,
 * no `close()`), or left to exit by itself; the engine is polled until the container is gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Dockerode from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { BOUND_LABEL, createDockerRuntime, MANAGED_LABEL, SANDBOX_ID_LABEL } from './index.js';
import { dockerAvailable, TEST_IMAGE } from '../test-support/docker.js';

const available = await dockerAvailable();
const docker = new Dockerode();
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const entry = pathToFileURL(path.join(here, 'index.ts')).href;
let counter = 0;
const newId = () => `bound${process.pid}-${Date.now().toString(36)}-${counter++}`;
const children: ChildProcess[] = [];
const leftovers: string[] = [];
/** How long the engine may take to remove a container whose process died: seconds, with room for a loaded CI machine. */
const GONE_WITHIN_MS = 15_000;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(
    leftovers.map((name) =>
      docker
        .getContainer(name)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
});

/**
 * A child process that starts a sandbox (bound or not), runs `sleep 300` in it, says READY and
 * then stays alive — or, with `exit`, returns from its script without closing the runtime.
 */
async function childWithSandbox(sandboxId: string, options: { bound: boolean; exit?: boolean }): Promise<ChildProcess> {
  const script = `
    const { createDockerRuntime } = await import(${JSON.stringify(entry)});
    const runtime = createDockerRuntime({ images: [${JSON.stringify(TEST_IMAGE)}] });
    await runtime.start({ sandboxId: ${JSON.stringify(sandboxId)}, specId: ${JSON.stringify(TEST_IMAGE)}, boundToProcess: ${options.bound} });
    const command = runtime.exec(${JSON.stringify(sandboxId)}, { command: 'echo started; sleep 300' })[Symbol.asyncIterator]();
    await command.next();
    console.log('READY');
    ${options.exit ? 'command.return?.();' : 'setInterval(() => {}, 60_000);'}
  `;
  const child = spawn(process.execPath, ['--conditions=agent-platform-source', '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the child did not get ready:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('READY')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      if (!output.includes('READY')) reject(new Error(`the child exited (${code}):\n${output}`));
    });
  });
  return child;
}

/** The container's state, `gone` once the engine has no such container. */
async function stateOf(name: string): Promise<string> {
  return docker
    .getContainer(name)
    .inspect()
    .then(
      (info) => info.State.Status,
      () => 'gone',
    );
}

/**
 * Polls until the engine has no such container; the last state seen. A
 * bound container is `exited` for a moment before the engine's `AutoRemove` takes it, so a
 * stopped container is not yet the end (under load that moment lasts: stopping there was flaky).
 */
async function waitUntilGone(name: string, withinMs: number): Promise<string> {
  const began = Date.now();
  let state = await stateOf(name);
  while (state !== 'gone' && Date.now() - began < withinMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    state = await stateOf(name);
  }
  return state;
}

describe.runIf(available)('boundToProcess', { timeout: 60_000 }, () => {
  it('a bound sandbox is removed within seconds of its process being SIGKILLed, its running command with it', async () => {
    const sandboxId = newId();
    const name = `agent-platform-${sandboxId}`;
    leftovers.push(name);
    const child = await childWithSandbox(sandboxId, { bound: true });
    const info = await docker.getContainer(name).inspect();
    expect(info.State.Running).toBe(true);
    expect(info.Config.Labels[BOUND_LABEL]).toBe('true');
    expect(info.HostConfig.AutoRemove).toBe(true);
    const top = await docker.getContainer(name).top();
    expect(JSON.stringify(top.Processes)).toContain('sleep 300');

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(await waitUntilGone(name, GONE_WITHIN_MS)).toBe('gone');
  });

  it('a process that exits without close() takes its bound sandbox along (and is not kept alive by it)', async () => {
    const sandboxId = newId();
    const name = `agent-platform-${sandboxId}`;
    leftovers.push(name);
    const child = await childWithSandbox(sandboxId, { bound: true, exit: true });
    const code = await new Promise((resolve) => {
      if (child.exitCode !== null) resolve(child.exitCode);
      else child.once('exit', resolve);
    });
    expect(code).toBe(0);
    expect(await waitUntilGone(name, GONE_WITHIN_MS)).toBe('gone');
  });

  it('without boundToProcess the sandbox outlives its process, as before', async () => {
    const sandboxId = newId();
    const name = `agent-platform-${sandboxId}`;
    leftovers.push(name);
    const child = await childWithSandbox(sandboxId, { bound: false });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await stateOf(name)).toBe('running');
    const runtime = createDockerRuntime({ images: [TEST_IMAGE] });
    await runtime.delete(sandboxId);
    await expect(docker.getVolume(name).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('delete() and close() remove bound sandboxes as any other, volume included', async () => {
    const runtime = createDockerRuntime({ images: [TEST_IMAGE] });
    const first = newId();
    const second = newId();
    await runtime.start({ sandboxId: first, specId: TEST_IMAGE, boundToProcess: true });
    await runtime.start({ sandboxId: second, specId: TEST_IMAGE, boundToProcess: true });
    const volumes = (await docker.getContainer(`agent-platform-${first}`).inspect()).Mounts.map((mount) => mount.Name);
    let stdout = '';
    for await (const event of runtime.exec(first, { command: 'echo kept > notes.txt && cat notes.txt' })) if (event.type === 'stdout') stdout += event.data;
    expect(stdout).toBe('kept\n');
    await runtime.delete(first);
    expect((await runtime.inspect(first)).status).toBe('MISSING');
    for (const volume of volumes) if (volume) await expect(docker.getVolume(volume).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect((await runtime.inspect(second)).status).toBe('RUNNING');
    await runtime.close();
    expect(await waitUntilGone(`agent-platform-${second}`, GONE_WITHIN_MS)).toBe('gone');
  });

  it('a runtime starting a sandbox removes bound containers their process left stopped', async () => {
    const sandboxId = newId();
    const name = `agent-platform-${sandboxId}`;
    leftovers.push(name);
    const stale = await docker.createContainer({
      name,
      Image: TEST_IMAGE,
      Cmd: ['true'],
      Labels: { [MANAGED_LABEL]: 'true', [SANDBOX_ID_LABEL]: sandboxId, [BOUND_LABEL]: 'true' },
    });
    await stale.start();
    await stale.wait();
    expect(await stateOf(name)).toBe('exited');
    const runtime = createDockerRuntime({ images: [TEST_IMAGE] });
    try {
      await runtime.start({ sandboxId: newId(), specId: TEST_IMAGE });
      expect(await stateOf(name)).toBe('gone');
    } finally {
      await runtime.close();
    }
  });
});
