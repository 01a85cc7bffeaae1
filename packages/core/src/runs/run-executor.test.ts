import { afterEach, describe, expect, it } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  type AgentPlatform,
  type SandboxRuntime,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { flakyStartRuntime } from '@agent-platform/testing/flaky-runtime';
import { makeRunRecord } from '@agent-platform/testing/fixtures';

const alice = { userId: 'alice', orgId: 'acme' };
let platform: AgentPlatform | null = null;
let runtime: SandboxRuntime | null = null;

afterEach(async () => {
  await platform?.stop();
  await runtime?.close();
  platform = null;
  runtime = null;
});

async function setup(command: string, options: { runtime?: SandboxRuntime; start?: boolean } = {}) {
  runtime = options.runtime ?? createProcessRuntime();
  platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    runtime,
    agent: createCommandAgentRunner({ command }),
    executor: { pollIntervalMs: 50, retryBackoffMs: 10 },
  });
  if (options.start !== false) await platform.start();
  return platform;
}

async function automation(p: AgentPlatform, extra: Record<string, unknown> = {}) {
  return p.automations.create(alice, {
    name: 'triage',
    trigger: { type: 'event', source: 'github', on: 'issues.opened' },
    instructions: 'Triage the issue',
    ...extra,
  });
}

async function runOf(p: AgentPlatform, automationId: string) {
  return (await p.automations.listRuns(alice, automationId, { limit: 10, offset: 0 })).runs[0]!;
}

async function eventsOf(p: AgentPlatform, conversationId: string) {
  return (await p.storage.conversations.listEvents(conversationId, { limit: 100 })).items;
}

describe('RunExecutor', () => {
  it('runs a dispatched run in a sandbox to COMPLETED, storing the conversation and its events', async () => {
    const p = await setup('echo "task: $AGENT_PLATFORM_INSTRUCTIONS"; echo \'{"step": "done"}\'; cat "$AGENT_PLATFORM_EVENT_FILE"');
    await p.settings.store(alice, { llm_api_key: 'sk-executor-secret-1' });
    const created = await automation(p);
    const dispatched = await p.automations.dispatch(alice, created.id, { payload: { issue: { number: 7 } } });
    await p.executor!.idle();
    const run = await runOf(p, created.id);
    expect(run).toMatchObject({ id: dispatched.id, status: 'COMPLETED', attempt: 1, error_detail: null });
    expect(run.conversation_id).toEqual(expect.any(String));
    const conversation = await p.storage.conversations.get(run.conversation_id!);
    expect(conversation).toMatchObject({ trigger: 'automation', run_id: run.id, execution_status: 'finished', title: 'triage' });
    const events = await eventsOf(p, run.conversation_id!);
    // The task, when the sandbox started (for the run's timeline), then the agent's output.
    expect(events.map((event) => event.kind)).toEqual([
      'MessageEvent',
      'agent_event',
      'agent_output',
      'agent_event',
      'agent_event',
      'ConversationStateUpdateEvent',
      'status',
    ]);
    expect(events[0]?.message).toBe('Triage the issue\n\nEvent payload:\n{"issue":{"number":7}}');
    expect(events[1]?.data).toMatchObject({ type: 'job_stages', stages: [{ stage: 'sandbox' }] });
    expect(events[2]?.message).toBe('task: Triage the issue');
    expect(events[4]?.data).toEqual({ issue: { number: 7 } });
    expect(JSON.stringify(events)).not.toContain('sk-executor-secret-1');
    expect((await p.storage.sandboxes.get(run.sandbox_id!))?.status).toBe('MISSING');
    expect((await runtime!.inspect(run.sandbox_id!)).status).toBe('MISSING');
  });

  it('fails a run whose agent exits non-zero, with the end of stderr as the reason', async () => {
    const p = await setup('echo "cannot reach the model" >&2; exit 2');
    const created = await automation(p);
    await p.automations.dispatch(alice, created.id, {});
    await p.executor!.idle();
    expect(await runOf(p, created.id)).toMatchObject({ status: 'FAILED', error_detail: 'cannot reach the model' });
  });

  it('cancels a running agent: the run ends CANCELLED', async () => {
    const p = await setup('echo started; sleep 30');
    const created = await automation(p);
    const run = await p.automations.dispatch(alice, created.id, {});
    // The agent is at work once its conversation is attached to the run.
    for (let i = 0; i < 200 && !(await runOf(p, created.id)).conversation_id; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    await p.automations.cancelRun(alice, run.id);
    await p.executor!.idle();
    const ended = await runOf(p, created.id);
    expect(ended.status).toBe('CANCELLED');
    const events = await eventsOf(p, ended.conversation_id!);
    expect(events.at(-1)?.data).toMatchObject({ status: 'CANCELLED' });
  });

  it('fails a run that passes its time limit', async () => {
    const p = await setup('sleep 30');
    const created = await automation(p, { timeout_seconds: 1 });
    await p.automations.dispatch(alice, created.id, {});
    await p.executor!.idle();
    expect(await runOf(p, created.id)).toMatchObject({ status: 'FAILED', error_detail: 'timed out after 1 s' });
  });

  it('retries a run whose sandbox would not start, and completes it on a later attempt', async () => {
    const flaky = flakyStartRuntime(createProcessRuntime(), 1);
    const p = await setup('echo ok', { runtime: flaky });
    const created = await automation(p);
    await p.automations.dispatch(alice, created.id, {});
    await p.executor!.idle();
    expect(await runOf(p, created.id)).toMatchObject({ status: 'COMPLETED', attempt: 2 });
  });

  it('takes again, at start-up, runs a crash left RUNNING', async () => {
    const p = await setup('echo recovered', { start: false });
    const created = await automation(p);
    const stranded = makeRunRecord({
      org_id: 'acme',
      automation_id: created.id,
      status: 'RUNNING',
      attempt: 1,
      delivery_id: null,
      dispatch_payload_json: null,
    });
    await p.storage.runs.insertMany([stranded]);
    await p.start();
    await p.executor!.idle();
    expect(await p.storage.runs.get('acme', stranded.id)).toMatchObject({ status: 'COMPLETED', attempt: 2 });
  });

  it('runs the runs an inbound event creates', async () => {
    const p = await setup('echo "event at $AGENT_PLATFORM_EVENT_FILE"');
    await p.webhooks.register(alice, { name: 'hook', source: 'hook', webhook_secret: 'hook-secret-0123' });
    const created = await automation(p, { trigger: { type: 'event', source: 'hook', on: 'ping' } });
    const { signatureHeaders } = await import('@agent-platform/core');
    const body = Buffer.from(JSON.stringify({ type: 'ping' }));
    const result = await p.events.ingest('acme', 'hook', {
      headers: signatureHeaders({ scheme: 'hmac-sha256', secret: 'hook-secret-0123', body, now: new Date() }),
      body,
    });
    expect(result.matched).toBe(1);
    await p.executor!.idle();
    const run = await runOf(p, created.id);
    expect(run).toMatchObject({ status: 'COMPLETED', trigger: 'event', delivery_id: result.delivery_id });
  });
});
