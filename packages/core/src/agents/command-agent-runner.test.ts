import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentNoteDraft,
  agentOutputDraft,
  createCommandAgentRunner,
  emptyAgentSettings,
  type AgentEvent,
  type AgentRunInput,
  type SandboxRuntime,
} from '@agent-platform/core';
import { createProcessRuntime } from '@agent-platform/sandbox-process';

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('command agent runner on the process runtime', () => {
  let runtime: SandboxRuntime;
  let sandboxId: string;
  beforeAll(async () => {
    runtime = createProcessRuntime();
    sandboxId = 'sbx_agent_test';
    await runtime.start({ sandboxId, specId: (await runtime.listSpecs())[0]!.id });
  });
  afterAll(() => runtime.close());

  const input = (overrides: Partial<AgentRunInput> = {}): AgentRunInput => ({
    runtime,
    sandboxId,
    conversationId: 'conv_1',
    runId: 'run_1',
    instructions: 'Fix the login bug',
    eventPayloadJson: JSON.stringify({ action: 'opened', number: 7 }),
    settings: emptyAgentSettings(),
    ...overrides,
  });

  it('passes the task, event and ids, turns JSON lines into events and other lines into output, and completes on exit 0', async () => {
    const agent = createCommandAgentRunner({
      command:
        'echo "task: $AGENT_PLATFORM_INSTRUCTIONS"; echo "{\\"step\\": 1, \\"run\\": \\"$AGENT_PLATFORM_RUN_ID\\"}"; cat "$AGENT_PLATFORM_EVENT_FILE"; echo; printf "no newline at end"',
    });
    const events = await collect(agent.run(input()));
    expect(events).toEqual([
      { type: 'record', event: agentOutputDraft('task: Fix the login bug') },
      { type: 'record', event: agentNoteDraft({ step: 1, run: 'run_1' }) },
      { type: 'record', event: agentNoteDraft({ action: 'opened', number: 7 }) },
      { type: 'record', event: agentOutputDraft('no newline at end') },
      { type: 'finished', outcome: { status: 'COMPLETED', reason: null } },
    ]);
  });

  it('fails with the end of stderr as the reason', async () => {
    const agent = createCommandAgentRunner({ command: 'echo working; echo "model refused: quota exceeded" >&2; exit 3' });
    const events = await collect(agent.run(input()));
    expect(events.at(-1)).toEqual({ type: 'finished', outcome: { status: 'FAILED', reason: 'model refused: quota exceeded' } });
  });

  it('gives the owner’s settings to the agent and scrubs every secret from what it reports', async () => {
    const settings = {
      ...emptyAgentSettings(),
      llmModel: 'anthropic/claude-sonnet-4',
      llmApiKey: 'sk-live-secret-key-123',
      providerTokens: { github: { token: 'ghp_secret_token_456', host: 'github.example.com' }, slack: { token: 'xoxb-secret-slack-321', host: null } },
      gitUserName: 'Alice',
      gitUserEmail: 'alice@example.com',
      maxIterations: 30,
      confirmationMode: false,
      mcpConfig: { sse_servers: [{ url: 'https://mcp.example.com', api_key: 'mcp-secret-789' }], stdio_servers: [], shttp_servers: [] },
    };
    const agent = createCommandAgentRunner({
      // A chat's token (Slack's) stays out of the sandbox: `$SLACK_TOKEN` prints nothing.
      command:
        'echo "$LLM_MODEL $LLM_API_KEY $GITHUB_TOKEN $GITHUB_HOST $GIT_AUTHOR_NAME $GIT_AUTHOR_EMAIL $MAX_ITERATIONS $CONFIRMATION_MODE$SLACK_TOKEN"; cat "$AGENT_PLATFORM_MCP_CONFIG_FILE"; echo; echo "$LLM_API_KEY" >&2; exit 1',
    });
    const events = await collect(agent.run(input({ settings })));
    const text = JSON.stringify(events);
    for (const secret of ['sk-live-secret-key-123', 'ghp_secret_token_456', 'mcp-secret-789']) expect(text).not.toContain(secret);
    expect(events[0]).toEqual({
      type: 'record',
      event: agentOutputDraft('anthropic/claude-sonnet-4 [redacted] [redacted] github.example.com Alice alice@example.com 30 false'),
    });
    expect(events[1]).toMatchObject({ type: 'record', event: agentNoteDraft({ sse_servers: [{ url: 'https://mcp.example.com', api_key: '[redacted]' }] }) });
    expect(events.at(-1)).toEqual({ type: 'finished', outcome: { status: 'FAILED', reason: '[redacted]' } });
  });

  it('ends CANCELLED when aborted and TIMED_OUT past its time limit', async () => {
    const agent = createCommandAgentRunner({ command: 'echo started; sleep 30' });
    const controller = new AbortController();
    const cancelled: AgentEvent[] = [];
    for await (const event of agent.run(input({ signal: controller.signal }))) {
      cancelled.push(event);
      if (event.type === 'record') controller.abort();
    }
    expect(cancelled.at(-1)).toEqual({ type: 'finished', outcome: { status: 'CANCELLED', reason: 'cancelled' } });
    const timedOut = await collect(agent.run(input({ timeoutMs: 300 })));
    expect(timedOut.at(-1)).toMatchObject({ type: 'finished', outcome: { status: 'TIMED_OUT' } });
  });

  it('does not give the agent an event file for a run without an event', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion in the agent's shell command, not a template
    const agent = createCommandAgentRunner({ command: 'echo "event=${AGENT_PLATFORM_EVENT_FILE:-none}"' });
    const events = await collect(agent.run(input({ eventPayloadJson: null, runId: null })));
    expect(events[0]).toEqual({ type: 'record', event: agentOutputDraft('event=none') });
  });
});
