import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { DataPointType, MeterProvider, MetricReader, type DataPoint, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentHarness, LLM_KEY } from '../../test-support/agent-harness.js';
import type { ResolvedModel } from '../model/model.js';
import { AgentMetrics, MODEL_LABEL_LIMIT } from './agent-metrics.js';

/** A reader the test collects from when it wants (no timer). */
class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const harness = new AgentHarness();
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
let reader: TestReader;
let meterProvider: MeterProvider;

beforeAll(async () => {
  // Parent and child spans across awaits: what a host's SDK registers.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  await harness.startLlm();
});
afterAll(async () => {
  context.disable();
  await tracerProvider.shutdown();
  await harness.close();
});
afterEach(() => spans.reset());

/** A fresh meter provider per test, so each test's metrics are its own. */
function telemetry() {
  reader = new TestReader();
  meterProvider = new MeterProvider({ readers: [reader] });
  return { tracerProvider, meterProvider };
}

async function collected(): Promise<MetricData[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics.flatMap((scope) => {
    expect(scope.scope.name).toBe('@agent-platform/agent');
    return scope.metrics;
  });
}

function metric(all: MetricData[], name: string): MetricData {
  const found = all.find((entry) => entry.descriptor.name === name);
  if (!found) throw new Error(`no metric ${name}; have ${all.map((entry) => entry.descriptor.name).join(', ')}`);
  return found;
}

const point = <T>(data: MetricData, attributes: Record<string, unknown>): DataPoint<T> => {
  const found = (data.dataPoints as DataPoint<T>[]).find((entry) => JSON.stringify(entry.attributes) === JSON.stringify(attributes));
  if (!found)
    throw new Error(`no ${data.descriptor.name} point for ${JSON.stringify(attributes)}; have ${JSON.stringify(data.dataPoints.map((p) => p.attributes))}`);
  return found;
};

const named = (all: ReadableSpan[], name: string) => all.filter((span) => span.name === name);
const childrenOf = (all: ReadableSpan[], parent: ReadableSpan) => all.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);

/** Everything a trace backend would store of the spans and metric points, as text. */
function recordedText(all: ReadableSpan[], data: MetricData[] = []): string {
  return JSON.stringify([
    all.map((span) => [span.name, span.attributes, span.status, span.events, span.links]),
    data.map((entry) => entry.dataPoints.map((p) => p.attributes)),
  ]);
}

// Distinctive words in what the user, the model and the tool wrote: none may reach a span or a metric.
const INSTRUCTIONS = 'Rename the kumquat files in the orchard folder';
const PAYLOAD = '{"fruit":"persimmon-payload-value"}';
const THOUGHT = 'Let me look at the mangosteen first.';
const COMMAND = 'printf "tamarind-%s" "$FRUIT_TOKEN"';
const SECRET = 'secret-lychee-value-42';
const ANSWER = 'All done with the dragonfruit.';

describe('the built-in agent traced and measured', () => {
  it('runs in an invoke_agent span under the active one, a span per step, chat and tool call, with GenAI attributes and metrics', async () => {
    await harness.startLlm({
      turns: [
        { text: THOUGHT, toolCalls: [{ name: 'terminal', arguments: { command: COMMAND } }], usage: { input: 1000, output: 50 } },
        { text: ANSWER, usage: { input: 1200, output: 20, cacheRead: 800 } },
      ],
    });
    const outer = tracerProvider.getTracer('engine');
    // The engine's run span: the agent's spans must join its trace.
    const { records, outcome } = await outer.startActiveSpan('run', async (span) => {
      try {
        return await harness.run(
          {
            runId: 'run-tele-1',
            instructions: INSTRUCTIONS,
            eventPayloadJson: PAYLOAD,
            settings: harness.settings({ customSecrets: { FRUIT_TOKEN: SECRET } }),
          },
          { telemetry: telemetry() },
        );
      } finally {
        span.end();
      }
    });
    expect(outcome).toMatchObject({ status: 'COMPLETED', finalResponse: ANSWER });
    const all = spans.getFinishedSpans();

    // The tree: run > invoke_agent > two steps; the first step > chat, execute_tool; the second > chat.
    const [run] = named(all, 'run');
    const [agent] = named(all, 'invoke_agent agent-platform');
    expect(run && agent).toBeTruthy();
    expect(agent!.parentSpanContext?.spanId).toBe(run!.spanContext().spanId);
    expect(new Set(all.map((span) => span.spanContext().traceId)).size).toBe(1);
    const steps = childrenOf(all, agent!);
    expect(steps.map((span) => span.name)).toEqual(['agent_platform.agent.step', 'agent_platform.agent.step']);
    expect(steps.map((span) => span.attributes['agent_platform.step.index'])).toEqual([1, 2]);
    expect(childrenOf(all, steps[0]!).map((span) => span.name)).toEqual(['chat gpt-4o', 'execute_tool terminal']);
    expect(childrenOf(all, steps[1]!).map((span) => span.name)).toEqual(['chat gpt-4o']);

    expect(agent!.kind).toBe(SpanKind.INTERNAL);
    expect(agent!.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'agent-platform',
      'gen_ai.conversation.id': 'conv-test',
      'agent_platform.run.id': 'run-tele-1',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'agent_platform.agent.status': 'COMPLETED',
      'agent_platform.agent.steps': 2,
    });
    expect(agent!.status.code).toBe(SpanStatusCode.UNSET);

    const [first, second] = named(all, 'chat gpt-4o');
    expect(first!.kind).toBe(SpanKind.CLIENT);
    expect(first!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.id': expect.stringMatching(/^chatcmpl-/),
      'gen_ai.response.model': 'gpt-4o',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 50,
      'agent_platform.model.retries': 0,
      'agent_platform.model.purpose': 'step',
    });
    // gpt-4o: input $2.50/M, output $10/M.
    expect(first!.attributes['gen_ai.usage.cost']).toBeCloseTo((1000 * 2.5 + 50 * 10) / 1e6, 10);
    expect(first!.attributes['gen_ai.usage.cache_read.input_tokens']).toBeUndefined();
    expect(second!.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 20,
      'gen_ai.usage.cache_read.input_tokens': 800,
    });
    expect((first!.attributes['gen_ai.usage.cost'] as number) + (second!.attributes['gen_ai.usage.cost'] as number)).toBeCloseTo(
      outcome.metrics!.accumulated_cost,
      8,
    );

    const [tool] = named(all, 'execute_tool terminal');
    const action = records.find((entry) => entry.event.kind === 'ActionEvent')!.event.data as { tool_call_id: string };
    expect(tool!.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'terminal',
      'gen_ai.tool.call.id': action.tool_call_id,
      'agent_platform.tool.outcome': 'answered',
      'agent_platform.tool.error': false,
    });
    expect(tool!.status.code).toBe(SpanStatusCode.UNSET);

    // Metrics: semconv's histograms and the counters by model.
    const data = await collected();
    const usage = metric(data, 'gen_ai.client.token.usage');
    expect(usage.descriptor.unit).toBe('{token}');
    const genAi = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o' };
    const input = point<Histogram>(usage, { ...genAi, 'gen_ai.token.type': 'input' }).value;
    expect(input).toMatchObject({ count: 2, sum: 2200, min: 1000, max: 1200 });
    expect(input.buckets.boundaries).toEqual([1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]);
    expect(point<Histogram>(usage, { ...genAi, 'gen_ai.token.type': 'output' }).value).toMatchObject({ count: 2, sum: 70 });
    const duration = metric(data, 'gen_ai.client.operation.duration');
    expect(duration.descriptor.unit).toBe('s');
    const calls = point<Histogram>(duration, genAi).value;
    expect(calls.count).toBe(2);
    expect(calls.sum).toBeGreaterThan(0);
    expect(calls.sum).toBeLessThan(30);
    expect(calls.buckets.boundaries[0]).toBe(0.01);
    const tokens = metric(data, 'agent_platform.model.tokens');
    expect(tokens.dataPointType).toBe(DataPointType.SUM);
    expect(point<number>(tokens, { model: 'openai/gpt-4o', type: 'input' }).value).toBe(2200);
    expect(point<number>(tokens, { model: 'openai/gpt-4o', type: 'output' }).value).toBe(70);
    const cost = metric(data, 'agent_platform.model.cost');
    expect(cost.descriptor.unit).toBe('USD');
    expect(point<number>(cost, { model: 'openai/gpt-4o' }).value).toBeCloseTo(outcome.metrics!.accumulated_cost, 8);

    // Nothing anyone wrote is recorded: not the task, the payload, the model's words, the command, its output, a secret or the key.
    const text = recordedText(all, data);
    expect(text).toContain('gpt-4o');
    expect(text).toContain(action.tool_call_id);
    const output = (records.find((entry) => entry.event.kind === 'ObservationEvent')!.event.data as any).observation.content[0].text as string;
    expect(output).toContain('tamarind-');
    for (const written of [
      INSTRUCTIONS,
      'kumquat',
      PAYLOAD,
      'persimmon',
      THOUGHT,
      'mangosteen',
      COMMAND,
      'FRUIT_TOKEN',
      'tamarind',
      SECRET,
      ANSWER,
      'dragonfruit',
      LLM_KEY,
      LLM_KEY.slice(-8),
    ]) {
      expect(text).not.toContain(written);
    }
  });

  it('a model call that fails marks its span and the run failed with the class of error, never the provider message or the key', async () => {
    await harness.startLlm({ apiKey: 'sk-the-right-key-000000000' });
    const { outcome } = await harness.run({}, { telemetry: telemetry() });
    expect(outcome.status).toBe('FAILED');
    const all = spans.getFinishedSpans();
    const [chat] = named(all, 'chat gpt-4o');
    expect(chat!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the model call failed: 401' });
    expect(chat!.attributes).toMatchObject({ 'error.type': '401', 'agent_platform.model.retries': 0 });
    expect(chat!.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    const [agent] = named(all, 'invoke_agent agent-platform');
    expect(agent!.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent!.status.message).toBe('the agent run ended FAILED');
    expect(agent!.attributes).toMatchObject({ 'agent_platform.agent.status': 'FAILED', 'error.type': 'FAILED', 'agent_platform.agent.steps': 1 });
    // OpenAI's 401 quotes the key's first and last characters: its message must be nowhere.
    for (const quoted of ['Incorrect API key', LLM_KEY.slice(0, 8)]) expect(recordedText(all)).not.toContain(quoted);

    const data = await collected();
    const duration = metric(data, 'gen_ai.client.operation.duration');
    expect(
      point<Histogram>(duration, { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o', 'error.type': '401' })
        .value.count,
    ).toBe(1);
    // No usage to report for a call that did not answer.
    expect(data.find((entry) => entry.descriptor.name === 'gen_ai.client.token.usage')?.dataPoints ?? []).toEqual([]);
  });

  it('counts the retries of a call on its one span', async () => {
    await harness.startLlm({ turns: [{ error: { status: 429, retryAfterSeconds: 0 } }, { text: 'done after a retry', usage: { input: 10, output: 2 } }] });
    await harness.run({}, { telemetry: telemetry() });
    const chats = named(spans.getFinishedSpans(), 'chat gpt-4o');
    expect(chats).toHaveLength(1);
    expect(chats[0]!.attributes).toMatchObject({ 'agent_platform.model.retries': 1, 'gen_ai.usage.input_tokens': 10 });
    expect(chats[0]!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("marks a tool call that errs with its class of error, never the error's text", async () => {
    await harness.startLlm({
      turns: [
        { toolCalls: [{ name: 'browse_the_plum_site', arguments: { url: 'x' } }] },
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo apricot-failure && exit 3' } }] },
        { toolCalls: [{ name: 'file_editor', arguments: { command: 'explode', path: 'nectarine.txt' } }] },
        { text: 'ok' },
      ],
    });
    await harness.run({}, { telemetry: telemetry() });
    const all = spans.getFinishedSpans();
    const tools = all.filter((span) => span.name.startsWith('execute_tool'));
    expect(tools.map((span) => [span.name, span.attributes['error.type'], span.attributes['agent_platform.tool.error'], span.status])).toEqual([
      ['execute_tool browse_the_plum_site', 'unknown_tool', true, { code: SpanStatusCode.ERROR, message: 'the tool call ended in unknown_tool' }],
      ['execute_tool terminal', 'tool_error', true, { code: SpanStatusCode.ERROR, message: 'the tool call ended in tool_error' }],
      ['execute_tool file_editor', 'invalid_arguments', true, { code: SpanStatusCode.ERROR, message: 'the tool call ended in invalid_arguments' }],
    ]);
    const text = recordedText(all);
    for (const written of ['apricot', 'nectarine', 'explode']) expect(text).not.toContain(written);
  });

  it('uses the global providers when given none, as they are when the runner is created', async () => {
    const { meterProvider: global } = telemetry();
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(global);
    try {
      await harness.startLlm({ turns: [{ text: 'hi', usage: { input: 3, output: 1 } }] });
      await harness.run({});
      expect(named(spans.getFinishedSpans(), 'chat gpt-4o')).toHaveLength(1);
      expect(point<number>(metric(await collected(), 'agent_platform.model.tokens'), { model: 'openai/gpt-4o', type: 'input' }).value).toBe(3);
    } finally {
      trace.disable();
      metrics.disable();
    }
  });
});

describe('AgentMetrics', () => {
  it(`keeps the first ${MODEL_LABEL_LIMIT} model names as labels, then says other`, () => {
    const meter = new MeterProvider().getMeter('test');
    const agentMetrics = new AgentMetrics(meter);
    const model = (n: number): ResolvedModel => ({ model: null as never, modelId: `m-${n}`, provider: 'custom', name: `custom/m-${n}` });
    for (let n = 0; n < MODEL_LABEL_LIMIT; n++) expect(agentMetrics.labelsFor(model(n)).cost).toEqual({ model: `custom/m-${n}` });
    const past = agentMetrics.labelsFor(model(MODEL_LABEL_LIMIT));
    expect(past.cost).toEqual({ model: 'other' });
    expect(past.duration).toEqual({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': '_OTHER', 'gen_ai.request.model': 'other' });
    // A name seen before keeps its label.
    expect(agentMetrics.labelsFor(model(7)).tokensIn).toEqual({ model: 'custom/m-7', type: 'input' });
  });
});
