/**
 * The reference server's traces as a collector receives them: the server runs with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an OTLP/HTTP receiver in this test (the official
 * protos decode what arrives); a signed webhook carrying a sender's `traceparent` fires an
 * automation, and the built-in agent calls the scripted model twice (a tool call, then its
 * answer). One trace, the sender's, runs from the webhook's span through the run to each model
 * call, with the GenAI attributes; no span carries a secret or a payload value; the server's log
 * lines name the trace.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIO, startAgentScenario, type AgentScenario } from './support/agent-scenario.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';

const SPAN_KIND_SERVER = 2;

describe('traces exported over OTLP', () => {
  let receiver: OtlpReceiver;
  let scenario: AgentScenario;
  const traceId = randomBytes(16).toString('hex');
  const senderSpanId = randomBytes(8).toString('hex');

  /** The spans of the sender's trace once `names` (exact, or a prefix ending in a space) have all arrived. */
  async function traceWith(names: string[]): Promise<ReceivedSpan[]> {
    const has = (spans: ReceivedSpan[], name: string) => spans.some((span) => (name.endsWith(' ') ? span.name.startsWith(name) : span.name === name));
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      const spans = receiver.spans.filter((span) => span.traceId === traceId);
      if (names.every((name) => has(spans, name))) return spans;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const summary = receiver.spans.map((span) => `${span.name} trace=${span.traceId === traceId ? 'sender' : span.traceId}`);
    const missing = names.filter(
      (name) =>
        !has(
          receiver.spans.filter((span) => span.traceId === traceId),
          name,
        ),
    );
    throw new Error(`missing from the sender's trace: ${missing.join(', ')}\nreceived: ${JSON.stringify(summary, null, 1)}\nrefused: ${receiver.refused}`);
  }

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    scenario = await startAgentScenario({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' });
    expect((await scenario.sendEvent({ traceparent: `00-${traceId}-${senderSpanId}-01` })).matched).toBe(1);
    expect((await scenario.finishedRun()).status).toBe('COMPLETED');
  }, 60_000);

  afterAll(async () => {
    if (scenario) expect(await scenario.stop()).toBe(0);
    await receiver?.close();
  }, 60_000);

  it('continues the sender’s trace in the webhook’s span', async () => {
    const [ingest] = (await traceWith(['agent_platform.ingest'])).filter((span) => span.name === 'agent_platform.ingest');
    expect(ingest).toMatchObject({ parentSpanId: senderSpanId, kind: SPAN_KIND_SERVER, scope: '@agent-platform/core' });
    expect(ingest!.resource).toMatchObject({ 'service.name': 'agent-platform' });
  });

  it('runs one trace from the webhook’s span through the run to each model call, with GenAI attributes', async () => {
    const spans = await traceWith(['agent_platform.ingest', 'agent_platform.run', 'invoke_agent ', 'agent_platform.agent.step', 'chat ', 'execute_tool ']);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const ingest = spans.find((span) => span.name === 'agent_platform.ingest')!;
    const run = spans.find((span) => span.name === 'agent_platform.run')!;
    /** The names from `span` up to the trace's root in this process. */
    const ancestry = (span: ReceivedSpan) => {
      const names: string[] = [];
      for (let at: ReceivedSpan | undefined = span; at; at = byId.get(at.parentSpanId)) names.push(at.name);
      return names;
    };

    const chats = spans.filter((span) => span.name.startsWith('chat '));
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.name).toBe('chat gpt-4o');
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': SCENARIO.usage.input,
        'gen_ai.usage.output_tokens': SCENARIO.usage.output,
      });
      // The model call hangs under the run, which hangs under the webhook's span.
      const chain = ancestry(chat);
      expect(chain).toContain('agent_platform.agent.step');
      expect(chain.some((name) => name.startsWith('invoke_agent '))).toBe(true);
      expect(chain).toContain('agent_platform.run');
      expect(chain.at(-1)).toBe('agent_platform.ingest');
    }
    expect(ancestry(run).at(-1)).toBe(ingest.name);
    const tool = spans.find((span) => span.name.startsWith('execute_tool '))!;
    expect(tool.name).toBe('execute_tool terminal');
    expect(ancestry(tool)).toContain('agent_platform.run');
  });

  it('carries no secret and no payload value in any span', async () => {
    await traceWith(['agent_platform.ingest', 'agent_platform.run', 'chat ']);
    const everything = JSON.stringify(receiver.spans);
    for (const forbidden of [scenario.webhookSecret, SCENARIO.apiKey, SCENARIO.llmKey, SCENARIO.secretKey, ...Object.values(SCENARIO.payload)]) {
      const holders = receiver.spans.filter((span) => JSON.stringify(span).includes(forbidden)).map((span) => span.name);
      expect(holders, `spans holding ${forbidden.slice(0, 12)}…`).toEqual([]);
      expect(everything).not.toContain(forbidden);
    }
  });

  it('names the trace in the server’s log lines (trace_id, span_id)', async () => {
    await traceWith(['agent_platform.ingest']);
    const lines = scenario.server.output
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const traced = lines.filter((line) => line.trace_id === traceId);
    expect(traced.length).toBeGreaterThan(0);
    expect(traced.every((line) => typeof line.span_id === 'string' && /^[0-9a-f]{16}$/.test(line.span_id))).toBe(true);
    // A delivery's line is among them.
    expect(traced.some((line) => line.kind === 'delivery')).toBe(true);
  });
});
