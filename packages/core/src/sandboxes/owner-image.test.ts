import { afterEach, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  PlatformError,
  type AgentPlatform,
  type SandboxRuntime,
  type StartSandboxInput,
  type StorageAdapter,
} from '@agent-platform/core';
import { imageAllowed, imageNotAllowed } from '@agent-platform/core/adapter-kit';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';

const alice = { userId: 'alice', orgId: 'acme' };
const ALLOWED = ['ghcr.io/acme/sandbox:1.4', 'ghcr.io/acme/tools:*'];

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

/**
 * A runtime that can choose images (these) and says whether it takes an owner's credential: the
 * process runtime underneath, reporting the image asked for, and keeping every start's input.
 */
function choosingRuntime(takesOwnerCredential: boolean): SandboxRuntime & { starts: StartSandboxInput[] } {
  const inner = createProcessRuntime();
  const starts: StartSandboxInput[] = [];
  return {
    ...inner,
    name: 'choosing',
    takesOwnerCredential,
    starts,
    async allowedImages() {
      return [...ALLOWED];
    },
    async start(input) {
      starts.push(input);
      if (input.image !== undefined && !imageAllowed(input.image, ALLOWED)) throw imageNotAllowed(input.image, ALLOWED);
      const { image, ownerCredential: _credential, ...rest } = input;
      return { ...(await inner.start(rest)), image: image ?? 'ghcr.io/acme/sandbox:1.4' };
    },
  };
}

const platforms: { platform: AgentPlatform; runtime: SandboxRuntime | null }[] = [];
function platformWith(runtime: SandboxRuntime | null): { platform: AgentPlatform; storage: StorageAdapter } {
  const storage = createMemoryStorage();
  const platform = createAgentPlatform({
    storage,
    ...(runtime ? { runtime, agent: createCommandAgentRunner({ command: 'echo done' }) } : {}),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
  });
  platforms.push({ platform, runtime });
  return { platform, storage };
}
afterEach(async () => {
  for (const { platform, runtime } of platforms.splice(0)) {
    await platform.stop();
    await runtime?.close();
  }
});

describe('imageAllowed', () => {
  it('takes exact references as written, and patterns ending in * by prefix', () => {
    expect(imageAllowed('ghcr.io/acme/sandbox:1.4', ALLOWED)).toBe(true);
    expect(imageAllowed('ghcr.io/acme/tools:2', ALLOWED)).toBe(true);
    expect(imageAllowed('ghcr.io/acme/tools:', ALLOWED)).toBe(true);
    expect(imageAllowed('ghcr.io/acme/sandbox:1.5', ALLOWED)).toBe(false);
    expect(imageAllowed('ghcr.io/acme/sandbox', ALLOWED)).toBe(false);
    expect(imageAllowed('ghcr.io/acme/toolsmith:1', ALLOWED)).toBe(false);
    expect(imageAllowed('anything', ['*'])).toBe(true);
    expect(imageAllowed('anything', [])).toBe(false);
  });
});

describe('the owner’s sandbox image at save', () => {
  it('is kept when the runtime allows it; any other is a 422 naming the field and listing the allowed images', async () => {
    const { platform } = platformWith(choosingRuntime(false));
    await platform.settings.store(alice, { sandbox_runtime_container_image: 'ghcr.io/acme/tools:2', sandbox_base_container_image: 'ghcr.io/acme/sandbox:1.4' });
    expect(await platform.settings.get(alice)).toMatchObject({
      sandbox_runtime_container_image: 'ghcr.io/acme/tools:2',
      sandbox_base_container_image: 'ghcr.io/acme/sandbox:1.4',
    });

    const refused = await failure(platform.settings.store(alice, { sandbox_runtime_container_image: 'docker.io/evil/miner:latest' }));
    expect(refused.status).toBe(422);
    const message =
      'sandbox_runtime_container_image: "docker.io/evil/miner:latest" is not an image this platform allows; the allowed images are: ghcr.io/acme/sandbox:1.4, ghcr.io/acme/tools:*';
    expect(refused.message).toBe(message);
    expect(refused.issues).toEqual([{ loc: ['body', 'sandbox_runtime_container_image'], msg: message, type: 'enum' }]);
    const base = await failure(platform.settings.store(alice, { sandbox_base_container_image: 'ghcr.io/acme/sandbox:1.5' }));
    expect(base.issues?.[0]?.loc).toEqual(['body', 'sandbox_base_container_image']);
    // OpenHands' V1 save is checked alike; nothing was stored by the refusals.
    const v1 = await failure(platform.settings.saveOpenHands(alice, { sandbox_runtime_container_image: 'ubuntu:24.04' }));
    expect(v1.message).toContain('the allowed images are: ghcr.io/acme/sandbox:1.4, ghcr.io/acme/tools:*');
    expect((await platform.settings.get(alice)).sandbox_runtime_container_image).toBe('ghcr.io/acme/tools:2');
    // Empty (or blank) asks for no image of the owner's own.
    await platform.settings.store(alice, { sandbox_runtime_container_image: '', sandbox_base_container_image: '  ' });
    expect((await platform.settings.agentSettings('alice')).sandboxImage).toBeNull();
  });

  it('is a 422 saying so where the runtime cannot choose images (the process runtime), or there is none', async () => {
    const onProcess = await failure(platformWith(createProcessRuntime()).platform.settings.store(alice, { sandbox_base_container_image: 'python:3.12' }));
    expect(onProcess.message).toBe(
      'sandbox_base_container_image: this platform\'s sandbox runtime (process) cannot run a chosen image ("python:3.12"); leave it empty',
    );
    const none = await failure(platformWith(null).platform.settings.saveOpenHands(alice, { sandbox_runtime_container_image: 'python:3.12' }));
    expect(none.message).toBe('sandbox_runtime_container_image: this platform runs no sandboxes, so it takes no sandbox image ("python:3.12"); leave it empty');
  });
});

describe('the owner’s image and credential where sandboxes start', () => {
  it('a sandbox runs the owner’s image (the runtime image over the base), and its view says so', async () => {
    const runtime = choosingRuntime(false);
    const { platform } = platformWith(runtime);
    await platform.settings.store(alice, { sandbox_base_container_image: 'ghcr.io/acme/sandbox:1.4', sandbox_runtime_container_image: 'ghcr.io/acme/tools:7' });
    const sandbox = await platform.sandboxes.start(alice, null);
    expect(sandbox.image).toBe('ghcr.io/acme/tools:7');
    expect(runtime.starts.at(-1)).toMatchObject({ image: 'ghcr.io/acme/tools:7' });
    expect((await platform.sandboxes.batchGet(alice, [sandbox.id]))[0]?.image).toBe('ghcr.io/acme/tools:7');
  });

  it('a run’s conversation notes the owner’s image; the runtime got it', async () => {
    const runtime = choosingRuntime(false);
    const { platform } = platformWith(runtime);
    await platform.settings.store(alice, { sandbox_runtime_container_image: 'ghcr.io/acme/tools:7' });
    const task = await platform.conversations.start(alice, { initial_message: 'go' });
    await platform.conversations.settled();
    const [current] = await platform.conversations.tasks(alice, [task.id]);
    expect(current?.status).toBe('READY');
    const events = await platform.conversations.events(alice, current?.app_conversation_id as string, { limit: 100 });
    expect(events.items).toContainEqual(
      expect.objectContaining({
        message: "the sandbox runs the owner's image ghcr.io/acme/tools:7",
        data: { type: 'sandbox_image', image: 'ghcr.io/acme/tools:7' },
      }),
    );
    expect(runtime.starts.map((input) => input.image)).toEqual(['ghcr.io/acme/tools:7']);
  });

  it('an image no longer allowed stops the start with the list: a 422 for the sandboxes API, the start task’s error', async () => {
    const runtime = choosingRuntime(false);
    const { platform, storage } = platformWith(runtime);
    await platform.settings.store(alice, { language: 'en' });
    // Stored when the host allowed it; the host's list changed since.
    const record = await storage.settings.get('alice');
    await storage.settings.put({ ...record!, values: { ...record!.values, sandbox_runtime_container_image: 'ghcr.io/acme/sandbox:0.9' } });
    const refused = await failure(platform.sandboxes.start(alice, null));
    expect(refused.status).toBe(422);
    expect(refused.message).toContain('"ghcr.io/acme/sandbox:0.9" is not an image this platform allows; the allowed images are: ghcr.io/acme/sandbox:1.4');
    expect(runtime.starts).toEqual([]);
    const task = await platform.conversations.start(alice, { initial_message: 'go' });
    await platform.conversations.settled();
    const [current] = await platform.conversations.tasks(alice, [task.id]);
    expect(current).toMatchObject({ status: 'ERROR', detail: expect.stringContaining('is not an image this platform allows') });
  });

  it('the owner’s sandbox_api_key reaches a runtime that takes it, opened, and no other', async () => {
    const takes = choosingRuntime(true);
    const one = platformWith(takes);
    await one.platform.settings.store(alice, { sandbox_api_key: 'remote-runtime-key-1' });
    await one.platform.sandboxes.start(alice, null);
    expect(takes.starts.at(-1)?.ownerCredential).toBe('remote-runtime-key-1');
    const task = await one.platform.conversations.start(alice, { initial_message: 'go' });
    await one.platform.conversations.settled();
    expect((await one.platform.conversations.tasks(alice, [task.id]))[0]?.status).toBe('READY');
    expect(takes.starts.at(-1)?.ownerCredential).toBe('remote-runtime-key-1');
    // Stored sealed, and never shown.
    expect(JSON.stringify(await one.storage.settings.get('alice'))).not.toContain('remote-runtime-key-1');
    expect(await one.platform.settings.get(alice)).toMatchObject({ sandbox_api_key: null, sandbox_api_key_set: true });

    const declines = choosingRuntime(false);
    const two = platformWith(declines);
    await two.platform.settings.store(alice, { sandbox_api_key: 'remote-runtime-key-2' });
    await two.platform.sandboxes.start(alice, null);
    expect(declines.starts.at(-1)).not.toHaveProperty('ownerCredential');
  });

  it('the built-in runtimes take no owner’s credential', () => {
    expect(createProcessRuntime().takesOwnerCredential).not.toBe(true);
  });
});

describe('user_consents_to_analytics', () => {
  it('is stored and returned as sent (the platform sends no analytics anywhere)', async () => {
    const { platform } = platformWith(null);
    await platform.settings.store(alice, { user_consents_to_analytics: true });
    expect((await platform.settings.get(alice)).user_consents_to_analytics).toBe(true);
    await platform.settings.saveOpenHands(alice, { user_consents_to_analytics: false });
    expect((await platform.settings.get(alice)).user_consents_to_analytics).toBe(false);
  });
});
