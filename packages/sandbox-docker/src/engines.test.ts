/**
 * The Docker runtime over two real engines (this machine's and the one
 * scripts/docker-second-engine.sh starts): the conformance suite, placement, a sandbox reached
 * from another runtime object (another process's stand-in), and engines that do not answer.
 */
import { randomBytes } from 'node:crypto';
import Dockerode from 'dockerode';
import { isPlatformError, type Logger, type RuntimeSandbox, type SandboxRuntime } from '@agent-platform/core';
import { testSandboxRuntime } from '@agent-platform/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createDockerRuntime } from './index.js';
import { FIRST_DOCKER_HOST, SECOND_DOCKER_HOST, TEST_IMAGE, twoEnginesAvailable } from '../test-support/second-engine.js';

const available = await twoEnginesAvailable('Docker runtime on two engines');
const ENGINES = [`first=${FIRST_DOCKER_HOST}`, `second=${SECOND_DOCKER_HOST}`];
/** The second engine has no bridge network (scripts/docker-second-engine.sh): these sandboxes have none. */
const SPEC = { image: TEST_IMAGE, network: 'none' };
/** An engine that is not there: a socket nobody listens on. */
const NOWHERE = 'unix:///run/agent-platform-no-such-engine.sock';

async function output(runtime: SandboxRuntime, sandboxId: string, command: string): Promise<string> {
  let text = '';
  for await (const event of runtime.exec(sandboxId, { command })) if (event.type === 'stdout') text += event.data;
  return text.trim();
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!isPlatformError(error)) throw new Error(`expected a PlatformError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

if (available) {
  testSandboxRuntime('docker on two engines', () => createDockerRuntime({ images: [SPEC], engines: ENGINES, namePrefix: 'ap-conformance-' }), {
    timeout: 60_000,
  });

  describe('Docker runtime on two engines', { timeout: 60_000 }, () => {
    // A prefix of this file's own: the count placement goes by is of these sandboxes only.
    const namePrefix = `ap-engines-${randomBytes(3).toString('hex')}-`;
    const placements: number[] = [];
    const logger = { debug: (fields: { placementMs?: number }) => fields.placementMs !== undefined && placements.push(fields.placementMs) };
    const runtime = createDockerRuntime({ images: [SPEC], engines: ENGINES, namePrefix, logger: logger as unknown as Logger });
    const other = createDockerRuntime({ images: [SPEC], engines: ENGINES, namePrefix });
    const started: string[] = [];
    const start = async (on: SandboxRuntime = runtime): Promise<RuntimeSandbox> => {
      const sandboxId = `eng-${randomBytes(4).toString('hex')}`;
      started.push(sandboxId);
      return on.start({ sandboxId, specId: TEST_IMAGE });
    };

    afterAll(async () => {
      await Promise.all(started.map((id) => runtime.delete(id).catch(() => undefined)));
      await Promise.all([runtime.close(), other.close()]);
      if (placements.length) console.log(`placement over two engines: ${placements.join(', ')} ms (${placements.length} starts)`);
    });

    it('places sandboxes on the engine with the fewest, ties by order, and each says where it runs', async () => {
      const first = await start();
      expect(first).toMatchObject({ status: 'RUNNING', engine: 'first' });
      const second = await start();
      expect(second).toMatchObject({ status: 'RUNNING', engine: 'second' });
      // Two at once: one on each (starts under way count), whatever order the engines answer in.
      const both = await Promise.all([start(), start()]);
      expect(both.map((sandbox) => sandbox.engine).sort()).toEqual(['first', 'second']);
      // The container really is on its engine, and only there.
      const docker = new Dockerode({ socketPath: SECOND_DOCKER_HOST.slice('unix://'.length) });
      expect((await docker.getContainer(`${namePrefix}${second.id}`).inspect()).State.Running).toBe(true);
      expect(await output(runtime, second.id, 'echo here')).toBe('here');
    });

    it('another runtime object reaches a sandbox on either engine: inspect, exec, pause, resume, delete', async () => {
      const sandboxes = [await start(), await start()];
      expect(new Set(sandboxes.map((sandbox) => sandbox.engine))).toEqual(new Set(['first', 'second']));
      for (const sandbox of sandboxes) {
        expect(await other.inspect(sandbox.id)).toMatchObject({ id: sandbox.id, status: 'RUNNING', engine: sandbox.engine, specId: TEST_IMAGE });
        expect(await output(other, sandbox.id, 'echo reached > note; cat note')).toBe('reached');
        await other.pause(sandbox.id);
        expect((await runtime.inspect(sandbox.id)).status).toBe('PAUSED');
        await other.resume(sandbox.id);
        expect(await output(runtime, sandbox.id, 'cat note')).toBe('reached');
        await other.delete(sandbox.id);
        // The one that started it asks its remembered engine, hears "not here", then asks all.
        expect(await runtime.inspect(sandbox.id)).toMatchObject({ status: 'MISSING' });
        expect((await failure(runtime.delete(sandbox.id))).code).toBe('NOT_FOUND');
      }
    });

    it('refuses a sandbox id that exists on another engine', async () => {
      const sandbox = await start();
      const onOther = sandbox.engine === 'first' ? 'second' : 'first';
      // A runtime with only the other engine would start it; this one sees both.
      expect(onOther).not.toBe(sandbox.engine);
      expect((await failure(other.start({ sandboxId: sandbox.id, specId: TEST_IMAGE }))).code).toBe('CONFLICT');
    });

    it('skips an engine that does not answer, and reports sandboxes it may hold as lost', async () => {
      const partly = createDockerRuntime({ images: [SPEC], engines: [`gone=${NOWHERE}`, ...ENGINES], namePrefix });
      try {
        // Health holds while one engine answers; every start goes to the ones that do.
        await partly.ping?.();
        const placed = [await start(partly), await start(partly)];
        expect(placed.map((sandbox) => sandbox.engine).sort()).toEqual(['first', 'second']);
        // A sandbox on no engine that answers: lost (ERROR), not MISSING, since the silent one may have it.
        const unknown = await partly.inspect('never-started');
        expect(unknown).toMatchObject({ status: 'ERROR', lost: expect.stringContaining('"gone" unreachable') });
        expect(await failure(partly.delete('never-started'))).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('is lost') });
        // The sandboxes on engines that answer are untouched.
        expect(await partly.inspect(placed[0]?.id ?? '')).toMatchObject({ status: 'RUNNING' });
      } finally {
        await partly.close();
      }
      const none = createDockerRuntime({ images: [SPEC], engines: [`gone=${NOWHERE}`], namePrefix });
      expect(await failure(none.start({ sandboxId: 'nowhere-1', specId: TEST_IMAGE }))).toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringContaining('No Docker engine is reachable (gone:'),
      });
      await expect(none.ping?.()).rejects.toThrow(/unreachable/);
    });

    it('refuses engine lists it cannot use, naming the field', () => {
      const refusal = (engines: string[]) => {
        try {
          createDockerRuntime({ images: [SPEC], engines });
        } catch (error) {
          if (isPlatformError(error)) return { code: error.code, message: error.message, issues: error.issues };
        }
        throw new Error('accepted');
      };
      expect(refusal([])).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ loc: ['engines'] }] });
      expect(refusal(['a=unix:///x.sock', 'a=unix:///y.sock'])).toMatchObject({
        message: expect.stringContaining('"a" is used twice'),
        issues: [{ loc: ['engines', 1, 'name'] }],
      });
      expect(refusal(['unix:///x.sock', 'http://example.com'])).toMatchObject({
        message: expect.stringContaining('unix:///path'),
        issues: [{ loc: ['engines', 1] }],
      });
      expect(refusal(['tcp://host-without-port'])).toMatchObject({ message: expect.stringContaining('needs a host and a port') });
      expect(refusal(['bad name=unix:///x.sock'])).toMatchObject({ message: expect.stringContaining('letters, digits') });
    });
  });
}
