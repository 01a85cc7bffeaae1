import { afterAll, describe, expect, it } from 'vitest';
import { agentNoteDraft, agentOutputDraft, createCommandAgentRunner, emptyAgentSettings, type AgentEvent } from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { demoAgent } from './demo-agent.js';

describe('the demo agent', () => {
  const runtime = createProcessRuntime();
  afterAll(() => runtime.close());

  it('reports its task and event and completes', async () => {
    await runtime.start({ sandboxId: 'sbx_demo', specId: (await runtime.listSpecs())[0]!.id });
    const agent = createCommandAgentRunner(demoAgent());
    const events: AgentEvent[] = [];
    for await (const event of agent.run({
      runtime,
      sandboxId: 'sbx_demo',
      conversationId: 'conv_demo',
      runId: 'run_demo',
      instructions: 'Say hello',
      eventPayloadJson: JSON.stringify({ action: 'opened', issue: { title: 'x' } }),
      settings: { ...emptyAgentSettings(), llmApiKey: 'sk-demo-secret-000' },
    })) {
      events.push(event);
    }
    expect(events[0]).toEqual({ type: 'record', event: agentNoteDraft({ type: 'status', status: 'started', conversation_id: 'conv_demo' }) });
    expect(events).toContainEqual({ type: 'record', event: agentOutputDraft('Task: Say hello') });
    const payload = JSON.stringify({ action: 'opened', issue: { title: 'x' } });
    expect(events).toContainEqual({ type: 'record', event: agentNoteDraft({ type: 'observation', source: 'event', payload_bytes: payload.length }) });
    expect(events).toContainEqual({ type: 'record', event: agentOutputDraft('Model: not configured; API key provided.') });
    expect(events.at(-1)).toEqual({ type: 'finished', outcome: { status: 'COMPLETED', reason: null } });
    expect(JSON.stringify(events)).not.toContain('sk-demo-secret-000');
  });
});
