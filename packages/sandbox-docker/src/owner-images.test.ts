import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Dockerode from 'dockerode';
import { PlatformError, type SandboxRuntime } from '@agent-platform/core';
import { createDockerRuntime } from './index.js';
import { filesArchive } from './archive.js';
import { dockerAvailable, TEST_IMAGE } from '../test-support/docker.js';

// An owner's image of its own, made here from the test image (nothing can be pulled): a marker
// file and a marker variable that only a sandbox of this image has.
const OWNER_IMAGE = 'agent-platform/owner-marker:test';
const available = await dockerAvailable();
const docker = new Dockerode();
let counter = 0;
const newId = () => `oi${process.pid}-${Date.now().toString(36)}-${counter++}`;

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

/** Commits a container of the test image with the marker file written into it and the marker variable set. */
async function buildOwnerImage(): Promise<void> {
  const container = await docker.createContainer({ Image: TEST_IMAGE, Cmd: ['true'] });
  try {
    await container.putArchive(await filesArchive('/', [{ path: '/etc/owner-marker', content: 'made for the owner\n' }]), { path: '/' });
    const [repo, tag] = OWNER_IMAGE.split(':') as [string, string];
    await container.commit({ repo, tag, changes: ['ENV OWNER_MARKER=owner-image'] });
  } finally {
    await container.remove({ force: true });
  }
}

describe('owner images: configuration', () => {
  it('lists the specs’ images and the owner images, and refuses malformed entries', async () => {
    const runtime = createDockerRuntime({ images: [TEST_IMAGE], ownerImages: ['ghcr.io/acme/sandbox:*', TEST_IMAGE, 'python:3.12'] });
    expect(await runtime.allowedImages?.()).toEqual([TEST_IMAGE, 'ghcr.io/acme/sandbox:*', 'python:3.12']);
    expect(runtime.takesOwnerCredential).toBe(false);
    expect(() => createDockerRuntime({ images: [TEST_IMAGE], ownerImages: ['ghcr.io/*/sandbox'] })).toThrow(/prefix ending in \*/);
    expect(() => createDockerRuntime({ images: [TEST_IMAGE], ownerImages: ['two words'] })).toThrow(PlatformError);
  });
});

describe.runIf(available)('owner images on a real engine', { timeout: 60_000 }, () => {
  let runtime: SandboxRuntime;
  beforeAll(async () => {
    await buildOwnerImage();
    runtime = createDockerRuntime({
      images: [{ image: TEST_IMAGE, id: 'base', env: { SPEC_VARIABLE: 'from-the-spec' } }],
      ownerImages: ['agent-platform/owner-marker:*'],
      pull: false,
    });
  });
  afterAll(async () => {
    await runtime?.close();
    await docker
      .getImage(OWNER_IMAGE)
      .remove({ force: true })
      .catch(() => undefined);
  });

  it('a sandbox started with an allowed owner image runs that image, keeping the rest of the spec', async () => {
    const sandboxId = newId();
    const started = await runtime.start({ sandboxId, specId: 'base', image: OWNER_IMAGE });
    expect(started).toMatchObject({ status: 'RUNNING', specId: 'base', image: OWNER_IMAGE, workingDir: '/workspace' });
    expect(await run(runtime, sandboxId, 'cat /etc/owner-marker; echo "$OWNER_MARKER $SPEC_VARIABLE"; pwd')).toBe(
      'made for the owner\nowner-image from-the-spec\n/workspace\n',
    );
    expect((await docker.getContainer(`agent-platform-${sandboxId}`).inspect()).Config.Image).toBe(OWNER_IMAGE);
    await runtime.delete(sandboxId);
  });

  it('without an image, the spec’s own runs (no marker), and inspect says which', async () => {
    const sandboxId = newId();
    const started = await runtime.start({ sandboxId, specId: 'base' });
    expect(started.image).toBe(TEST_IMAGE);
    expect(await run(runtime, sandboxId, 'cat /etc/owner-marker 2>/dev/null || echo no marker')).toBe('no marker\n');
    await runtime.delete(sandboxId);
  });

  it('an image outside the list is refused with the list, before anything is created', async () => {
    const sandboxId = newId();
    const error = await rejection(runtime.start({ sandboxId, specId: 'base', image: 'agent-platform/other:test' }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe(`image "agent-platform/other:test" is not allowed here; the allowed images are: ${TEST_IMAGE}, agent-platform/owner-marker:*`);
    expect(error.issues).toEqual([{ loc: ['image'], msg: error.message, type: 'enum' }]);
    // A pattern is no image to run, even one the list holds.
    expect((await rejection(runtime.start({ sandboxId, specId: 'base', image: 'agent-platform/owner-marker:*' }))).code).toBe('VALIDATION_FAILED');
    expect((await runtime.inspect(sandboxId)).status).toBe('MISSING');
    await expect(docker.getVolume(`agent-platform-${sandboxId}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});
