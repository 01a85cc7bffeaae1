import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync, strFromU8 } from 'fflate';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  PlatformError,
  workspacePath,
  type AgentPlatform,
  type SandboxRuntime,
  type StorageAdapter,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';

// Writes a file in its workspace, prints its task and the key it was given, and sleeps when asked.
const AGENT = [
  'mkdir -p notes && printf "hello from the agent\\n" > notes/hello.txt',
  'echo "task: $AGENT_PLATFORM_INSTRUCTIONS"',
  'echo "key=$LLM_API_KEY"',
  'case "$AGENT_PLATFORM_INSTRUCTIONS" in *sleep*) sleep 30;; esac',
].join('; ');

const alice = { userId: 'alice', orgId: 'acme' };
const bob = { userId: 'bob', orgId: 'acme' };

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

async function run(runtime: SandboxRuntime, sandboxId: string, command: string): Promise<void> {
  for await (const event of runtime.exec(sandboxId, { command }))
    if (event.type === 'exit' && event.result.exitCode !== 0) throw new Error(`${command} failed`);
}

describe('workspacePath', () => {
  it('resolves a path relative to the workspace or absolute inside it, and refuses one outside', () => {
    expect(workspacePath('/w/space', 'notes/a.txt')).toBe('/w/space/notes/a.txt');
    expect(workspacePath('/w/space/', '/w/space/notes/../a.txt')).toBe('/w/space/a.txt');
    expect(workspacePath('/w/space', './x')).toBe('/w/space/x');
    for (const bad of ['', '  ', '../x', '/etc/passwd', '/w/spacex/a', '/w/space', '.', 'a/../..', 'a\u0000b', 'x'.repeat(5000)]) {
      expect(() => workspacePath('/w/space', bad), JSON.stringify(bad)).toThrow(PlatformError);
    }
  });
});

describe('conversations: rename, delete, download, read a file', () => {
  let storage: StorageAdapter;
  let runtime: SandboxRuntime;
  let platform: AgentPlatform;

  beforeAll(async () => {
    storage = createMemoryStorage();
    runtime = createProcessRuntime();
    platform = createAgentPlatform({
      storage,
      runtime,
      agent: createCommandAgentRunner({ command: AGENT }),
      secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
      publicUrl: 'http://localhost',
    });
    await platform.settings.store(alice, { llm_model: 'demo/model', llm_api_key: 'sk-export-secret' });
  });
  afterAll(async () => {
    await platform.stop();
    await runtime.close();
  });

  async function started(message: string) {
    const task = await platform.conversations.start(alice, { initial_message: message, title: 'first' });
    for (let i = 0; i < 400; i++) {
      const [current] = await platform.conversations.tasks(alice, [task.id]);
      if (current?.status === 'READY') return { taskId: task.id, id: current.app_conversation_id as string, sandboxId: current.sandbox_id as string };
      if (current?.status === 'ERROR') throw new Error(current.detail ?? 'start failed');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the start task did not finish');
  }

  it('renames; refuses public sharing, and hides others’ conversations', async () => {
    const { id } = await started('rename me');
    await platform.conversations.settled();
    expect(await platform.conversations.update(alice, id, { title: 'renamed' })).toMatchObject({ id, title: 'renamed' });
    expect((await platform.conversations.get(alice, id)).title).toBe('renamed');
    for (const flag of [true, false]) {
      const refused = await failure(platform.conversations.update(alice, id, { public: flag, title: 'shared' }));
      expect(refused.status).toBe(422);
      expect(refused.issues?.[0]).toMatchObject({ loc: ['body', 'public'], msg: 'public sharing is not supported by this platform' });
    }
    expect((await platform.conversations.get(alice, id)).title).toBe('renamed');
    expect((await failure(platform.conversations.update(alice, id, { title: 'x'.repeat(501) }))).status).toBe(422);
    expect((await failure(platform.conversations.update(alice, id, { owner: 'bob' }))).status).toBe(422);
    expect((await failure(platform.conversations.update(bob, id, { title: 'mine now' }))).status).toBe(404);
    expect(await platform.conversations.update(alice, id, { title: null })).toMatchObject({ title: null });
  });

  it('zips the conversation: meta.json and one event file per event, secrets scrubbed', async () => {
    const { id } = await started('export me');
    await platform.conversations.settled();
    const events = (await platform.conversations.events(alice, id, { limit: 100 })).items;
    const archive = await platform.conversations.download(alice, id);
    expect(archive.filename).toBe(`conversation_${id}.zip`);
    const files = unzipSync(archive.bytes);
    const names = Object.keys(files);
    expect(names).toContain('meta.json');
    const eventNames = names.filter((name) => name !== 'meta.json');
    expect(eventNames).toEqual(events.map((event) => `event-${String(event.seq).padStart(5, '0')}-${event.id}.json`));
    const meta = JSON.parse(strFromU8(files['meta.json'] as Uint8Array));
    expect(meta).toMatchObject({ id, title: 'first', event_count: events.length, exported_at: expect.any(String) });
    const first = JSON.parse(strFromU8(files[eventNames[0] as string] as Uint8Array));
    expect(first).toMatchObject({ id: events[0]?.id, kind: 'MessageEvent', source: 'user', seq: 0, timestamp: events[0]?.created_at });
    expect(first.llm_message.content[0].text).toBe('export me');
    const output = eventNames
      .map((name) => JSON.parse(strFromU8(files[name] as Uint8Array)))
      .find((event) => event.kind === 'agent_output' && String(event.message).startsWith('task:'));
    expect(output?.message).toBe('task: export me');
    const everything = Object.values(files)
      .map((bytes) => strFromU8(bytes))
      .join('\n');
    expect(everything).not.toContain('sk-export-secret');
    expect((await failure(platform.conversations.download(bob, id))).status).toBe(404);
  });

  it('reads a file of the workspace: 404 missing, 422 outside or a directory or a link out, 413 too large, 409 paused or gone', async () => {
    const { id, sandboxId } = await started('write a note');
    await platform.conversations.settled();
    expect(await platform.conversations.readFile(alice, id, 'notes/hello.txt')).toBe('hello from the agent\n');
    const { workingDir } = await runtime.inspect(sandboxId);
    expect(await platform.conversations.readFile(alice, id, `${workingDir}/notes/hello.txt`)).toBe('hello from the agent\n');
    expect((await failure(platform.conversations.readFile(bob, id, 'notes/hello.txt'))).status).toBe(404);
    expect((await failure(platform.conversations.readFile(alice, id, 'notes/missing.txt'))).status).toBe(404);
    for (const path of ['../outside.txt', '/etc/hostname', 'notes']) {
      const error = await failure(platform.conversations.readFile(alice, id, path));
      expect(error.status, path).toBe(422);
      expect(error.issues?.[0]?.loc).toEqual(['query', 'file_path']);
    }
    await run(runtime, sandboxId, 'ln -s /etc/hostname notes/link && mkfifo notes/fifo && head -c 10485761 /dev/zero > notes/big.bin');
    expect((await failure(platform.conversations.readFile(alice, id, 'notes/link'))).message).toContain('outside');
    expect((await failure(platform.conversations.readFile(alice, id, 'notes/fifo'))).message).toContain('not a regular file');
    expect((await failure(platform.conversations.readFile(alice, id, 'notes/big.bin'))).status).toBe(413);
    await platform.sandboxes.pause(alice, sandboxId);
    expect((await failure(platform.conversations.readFile(alice, id, 'notes/hello.txt'))).message).toContain('paused');
    await platform.sandboxes.resume(alice, sandboxId);
    expect(await platform.conversations.readFile(alice, id, 'notes/hello.txt')).toBe('hello from the agent\n');
    await platform.sandboxes.delete(alice, sandboxId);
    const gone = await failure(platform.conversations.readFile(alice, id, 'notes/hello.txt'));
    expect(gone.status).toBe(409);
    expect(gone.message).toContain('gone');
  });

  it('deletes the conversation, its events, its start task and its sandbox; 404 for others and after', async () => {
    const { id, taskId, sandboxId } = await started('delete me');
    await platform.conversations.settled();
    expect((await failure(platform.conversations.delete(bob, id))).status).toBe(404);
    await platform.conversations.delete(alice, id);
    expect((await failure(platform.conversations.get(alice, id))).status).toBe(404);
    expect(await storage.conversations.listEvents(id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
    expect(await platform.conversations.tasks(alice, [taskId])).toEqual([null]);
    expect(await storage.sandboxes.get(sandboxId)).toBeNull();
    expect((await runtime.inspect(sandboxId)).status).toBe('MISSING');
    expect((await failure(platform.conversations.delete(alice, id))).status).toBe(404);
  });

  it('stops a running agent when its conversation is deleted: nothing more is recorded', async () => {
    const { id, sandboxId } = await started('sleep a while');
    expect((await platform.conversations.get(alice, id)).execution_status).toBe('running');
    const began = Date.now();
    await platform.conversations.delete(alice, id);
    await platform.conversations.settled();
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(await storage.conversations.get(id)).toBeNull();
    expect(await storage.conversations.listEvents(id, { limit: 10 })).toEqual({ items: [], nextPageId: null });
    expect((await runtime.inspect(sandboxId)).status).toBe('MISSING');
  });
});
