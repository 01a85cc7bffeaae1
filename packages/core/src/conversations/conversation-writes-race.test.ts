/**
 * A user's pause and the agent's own writes, racing on one conversation: each writes the members
 * it owns, so however they interleave both land. Written as read-then-replace, the later write
 * put back what the earlier one had read, and a pause (or the agent's status) was lost. And
 * resumes racing one another: each claims the conversation guarded by the version it read, so
 * exactly one starts the agent.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  type PlatformError,
  type AgentPlatform,
  type StorageAdapter,
} from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createPGliteStorage } from '@agent-platform/storage-postgres';
import { ConversationWriter } from '../agents/conversation-writer.js';
import { newConversationRecord } from '../agents/conversation-record.js';
import type { ServiceContext } from '../kernel/context.js';
import { systemClock } from '../ports/clock.js';
import { randomIdGenerator } from '../ports/id-generator.js';
import type { MetricsSnapshot } from '../schemas/metrics.js';

const ROUNDS = 40;
const alice = { userId: 'alice', orgId: 'acme' };

const metrics: MetricsSnapshot = {
  model_name: 'demo/model',
  accumulated_cost: 0.5,
  cost_known: true,
  max_budget_per_task: null,
  accumulated_token_usage: { prompt_tokens: 10, completion_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
  llm_calls: 1,
};

/** What a `ConversationWriter` uses of a service context: the storage, a clock, ids and the feed. */
function agentContext(storage: StorageAdapter): ServiceContext {
  const context: Partial<ServiceContext> = { storage, clock: systemClock, ids: randomIdGenerator, announce: async () => {} };
  return context as ServiceContext;
}

/** Lets `turns` turns of the event loop pass, so that the writers start in every order. */
async function after(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) await nextTurn();
}

const adapters: Array<[string, () => Promise<StorageAdapter> | StorageAdapter]> = [
  ['memory', () => createMemoryStorage()],
  ['pglite', () => createPGliteStorage()],
];

describe.each(adapters)('a pause racing the agent’s writes (%s)', (_name, create) => {
  let storage: StorageAdapter;
  let platform: AgentPlatform;
  let context: ServiceContext;

  beforeAll(async () => {
    storage = await create();
    platform = createAgentPlatform({ storage, secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }), publicUrl: 'http://localhost' });
    context = agentContext(storage);
  });
  afterAll(async () => {
    await platform?.stop();
    await storage?.close();
  });

  it('keeps the pause and the agent’s status and metrics, however they interleave', async () => {
    const records = Array.from({ length: ROUNDS }, () =>
      newConversationRecord(context, { owner: alice, sandboxId: 'sbx-race', trigger: 'api', title: 'race', llmModel: null, running: true }),
    );
    for (const record of records) await storage.conversations.insert(record);

    await Promise.all(
      records.map(async (record, n) => {
        const writer = new ConversationWriter(context, record.id);
        // Each writer starts after its own number of turns, so rounds try different orders.
        await Promise.all([
          after(n % 3).then(() => platform.conversations.pause(alice, record.id)),
          after((n >> 1) % 3).then(() => writer.setStatus('waiting_for_confirmation')),
          after((n >> 2) % 3).then(() => writer.recordMetrics(metrics)),
        ]);
      }),
    );

    for (const record of records) {
      const stored = await storage.conversations.get(record.id);
      expect(stored, `round ${records.indexOf(record)}`).toMatchObject({
        pause_requested: true,
        execution_status: 'waiting_for_confirmation',
        metrics,
        // One write each: nothing was written twice, or over another.
        version: 3,
      });
    }
  });

  it('shows no version in the conversation returned to its owner', async () => {
    const record = newConversationRecord(context, { owner: alice, sandboxId: 'sbx-view', trigger: 'api', title: 'view', llmModel: null, running: true });
    await storage.conversations.insert(record);
    await platform.conversations.pause(alice, record.id);
    expect((await storage.conversations.get(record.id))?.version).toBe(1);
    const view = await platform.conversations.get(alice, record.id);
    expect(view).not.toHaveProperty('version');
    expect((await platform.conversations.search(alice, { limit: 100 })).items.every((item) => !('version' in item))).toBe(true);
  });
});

describe('resumes racing one another', () => {
  const storage = createMemoryStorage();
  const runtime = createProcessRuntime();
  const platform = createAgentPlatform({
    storage,
    runtime,
    agent: createCommandAgentRunner({ command: 'echo "task: $AGENT_PLATFORM_INSTRUCTIONS"' }),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
  });
  afterAll(async () => {
    await platform.stop();
    await runtime.close();
  });

  it('start the agent once: the other claims lose to the one that won (409)', async () => {
    await platform.settings.store(alice, { llm_model: 'demo/model', llm_api_key: 'sk-race' });
    const task = await platform.conversations.start(alice, { initial_message: 'race me', title: 'race' });
    await platform.conversations.settled();
    const [ready] = await platform.conversations.tasks(alice, [task.id]);
    const id = ready?.app_conversation_id as string;
    expect((await platform.conversations.get(alice, id)).execution_status).toBe('finished');
    const ends = async () => (await platform.conversations.events(alice, id, { limit: 100 })).items.filter((event) => event.kind === 'status').length;
    expect(await ends()).toBe(1);

    const results = await Promise.allSettled(Array.from({ length: 6 }, () => platform.conversations.resume(alice, id)));
    await platform.conversations.settled();
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results) {
      if (result.status === 'rejected') expect(result.reason).toMatchObject({ status: 409 } satisfies Partial<PlatformError>);
    }
    // One more run of the agent, ended once.
    expect(await ends()).toBe(2);
  });
});
