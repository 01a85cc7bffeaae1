/**
 * A run whose sandbox is lost with its host mid-work (a Docker engine gone: the runtime reports
 * it `lost`) is retried in a new sandbox, the loss recorded as the attempt's reason, within the
 * run's attempt limit; an agent's own failure in a sandbox that is still there is not retried.
 * The host's loss is played by a wrapper of the process runtime (the real one, two Docker engines
 * and a killed dockerd, is test/e2e/docker-engines.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  PlatformError,
  type AgentPlatform,
  type SandboxRuntime,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';

const alice = { userId: 'alice', orgId: 'acme' };
let platform: AgentPlatform | null = null;
let runtime: SandboxRuntime | null = null;

afterEach(async () => {
  await platform?.stop();
  await runtime?.close();
  platform = null;
  runtime = null;
});

/**
 * The process runtime, with the first `losses` sandboxes on a host that goes away as their first
 * command starts: the command fails UNAVAILABLE and `inspect` reports the sandbox lost from then on.
 */
function losingRuntime(inner: SandboxRuntime, losses: number): SandboxRuntime {
  let left = losses;
  const doomed = new Set<string>();
  const lost = new Set<string>();
  const reason = 'its Docker engine "east" is unreachable';
  return {
    name: inner.name,
    listSpecs: () => inner.listSpecs(),
    inspect: async (id) =>
      lost.has(id) ? { id, specId: '', status: 'ERROR', workingDir: '', exposedUrls: [], engine: 'east', lost: reason } : inner.inspect(id),
    pause: (id) => inner.pause(id),
    resume: (id) => inner.resume(id),
    delete: async (id) => {
      if (lost.has(id)) throw new PlatformError('UNAVAILABLE', `Sandbox ${id} is lost: ${reason}`);
      return inner.delete(id);
    },
    exec: (id, input) => {
      if (!doomed.has(id)) return inner.exec(id, input);
      lost.add(id);
      return {
        // biome-ignore lint/correctness/useYield: the host is gone before any output.
        async *[Symbol.asyncIterator]() {
          throw new PlatformError('UNAVAILABLE', 'The Docker engine is unreachable: connect ECONNREFUSED');
        },
      };
    },
    close: () => inner.close(),
    start: async (input) => {
      const started = await inner.start(input);
      if (left-- > 0) doomed.add(input.sandboxId);
      return started;
    },
  };
}

async function runOnce(losses: number, command = 'echo done') {
  runtime = losingRuntime(createProcessRuntime(), losses);
  platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    runtime,
    agent: createCommandAgentRunner({ command }),
    executor: { pollIntervalMs: 50, retryBackoffMs: 10, maxAttempts: 3 },
  });
  await platform.start();
  const created = await platform.automations.create(alice, {
    name: 'triage',
    trigger: { type: 'event', source: 'github', on: 'issues.opened' },
    instructions: 'Triage the issue',
  });
  await platform.automations.dispatch(alice, created.id, {});
  await platform.executor!.idle();
  const run = (await platform.automations.listRuns(alice, created.id, { limit: 10, offset: 0 })).runs[0]!;
  const events = run.conversation_id ? (await platform.storage.conversations.listEvents(run.conversation_id, { limit: 100 })).items : [];
  return { run, events };
}

const statusReasons = (events: { kind: string; data?: unknown }[]) =>
  events.filter((event) => event.kind === 'status').map((event) => (event.data as { reason?: string | null }).reason);

describe('a run whose sandbox is lost with its host', () => {
  it('is retried in a new sandbox and completes; the conversation records the loss and the new attempt', async () => {
    const { run, events } = await runOnce(1);
    expect(run).toMatchObject({ status: 'COMPLETED', attempt: 2, error_detail: null });
    expect(statusReasons(events)).toEqual(['the sandbox was lost: its Docker engine "east" is unreachable', null]);
    expect(events.find((event) => (event.data as { type?: string } | null)?.type === 'run_resumed')).toMatchObject({
      data: { attempt: 2, fresh_sandbox: true },
    });
  });

  it('fails once its attempts are spent, the loss as its reason', async () => {
    const { run } = await runOnce(3);
    expect(run).toMatchObject({ status: 'FAILED', attempt: 3, error_detail: 'the sandbox was lost: its Docker engine "east" is unreachable' });
  });

  it('an agent that fails in a sandbox still there is not retried', async () => {
    const { run } = await runOnce(0, 'echo broken >&2; exit 1');
    expect(run).toMatchObject({ status: 'FAILED', attempt: 1, error_detail: 'broken' });
  });
});
