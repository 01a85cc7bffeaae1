/**
 * A run's conversation says when its sandbox started (and its repository was cloned): the stages
 * before the conversation opened, noted once it opens, for the console's timeline of the run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  jobStagesNoteSchema,
  type AgentPlatform,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';

const alice = { userId: 'alice', orgId: 'acme' };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function platformWithAgent(): Promise<AgentPlatform> {
  const runtime = createProcessRuntime();
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    runtime,
    agent: createCommandAgentRunner({ command: 'echo done' }),
    executor: { pollIntervalMs: 20 },
  });
  await platform.start();
  cleanups.push(async () => {
    await platform.stop();
    await runtime.close();
  });
  return platform;
}

describe('the stages before a run’s conversation opened', () => {
  it('are noted in it, in order, each within the run’s start and before the agent’s first event', async () => {
    const platform = await platformWithAgent();
    const automation = await platform.automations.create(alice, {
      name: 'stages',
      trigger: { type: 'event', source: 'ci', on: 'never.sent' },
      instructions: 'Say hello.',
    });
    const dispatched = await platform.automations.dispatch(alice, automation.id, {});
    let run = dispatched;
    for (let tries = 0; !['COMPLETED', 'FAILED'].includes(run.status) && tries < 500; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      run = await platform.automations.getRun(alice, dispatched.id);
    }
    expect(run.status).toBe('COMPLETED');
    const events = (await platform.conversations.events(alice, run.conversation_id as string, { limit: 100 })).items;
    const noted = events.filter((event) => event.kind === 'agent_event' && event.data?.type === 'job_stages');
    expect(noted).toHaveLength(1);
    const note = jobStagesNoteSchema.parse(noted[0]!.data);
    expect(note.stages.map((stage) => stage.stage)).toEqual(['sandbox']);
    const [sandbox] = note.stages;
    expect(Date.parse(sandbox!.started_at)).toBeGreaterThanOrEqual(Date.parse(run.started_at as string));
    expect(Date.parse(sandbox!.ended_at)).toBeGreaterThanOrEqual(Date.parse(sandbox!.started_at));
    expect(Date.parse(sandbox!.ended_at)).toBeLessThanOrEqual(Date.parse(noted[0]!.created_at));
    expect(noted[0]!.message).toMatch(/^the sandbox started in \d+ ms$/);
    expect(noted[0]!.source).toBe('system');
    // Noted as the conversation opens: before anything the agent wrote.
    expect(events.findIndex((event) => event.kind === 'agent_output' || event.kind === 'status')).toBeGreaterThan(events.indexOf(noted[0]!));
  });
});
