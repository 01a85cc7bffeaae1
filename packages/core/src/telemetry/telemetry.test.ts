/**
 * The engine's spans and metrics, recorded by a real OpenTelemetry SDK (in-memory exporter and
 * reader): one trace from a signed delivery (continuing the sender's `traceparent`) through
 * matching and the run to its sandbox commands and the outbound message, whose request carries
 * the trace on; the metrics by source, outcome and status, with bounded labels; and nothing of
 * the payload or the secrets in any attribute.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  createCommandAgentRunner,
  generateSecretKey,
  signatureHeaders,
  type AgentPlatform,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { startSubscriber } from '@agent-platform/testing/webhook-subscriber';
import { BoundedLabel, OTHER_LABEL } from './bounded-label.js';

const alice = { userId: 'alice', orgId: 'acme' };
const SENDER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SENDER_PARENT = `00-${SENDER_TRACE}-00f067aa0ba902b7-01`;
const PAYLOAD_VALUE = 'payload-value-7c1e9f';
const LLM_KEY = 'sk-telemetry-secret-93ab';

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
const contextManager = new AsyncLocalStorageContextManager();
const cleanups: (() => Promise<void>)[] = [];
const lines: Record<string, unknown>[] = [];
const keep = (line: object) => void lines.push(line as Record<string, unknown>);
const logger = { debug: keep, info: keep, warn: keep, error: keep };

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  spans.reset();
  lines.length = 0;
});

async function setup(): Promise<{ platform: AgentPlatform; send: (payload: unknown, headers?: Record<string, string>) => Promise<unknown>; secret: string }> {
  const runtime = createProcessRuntime();
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
    runtime,
    agent: createCommandAgentRunner({ command: 'echo working; echo "$AGENT_PLATFORM_INSTRUCTIONS" > /dev/null' }),
    executor: { pollIntervalMs: 50 },
    outbound: { allowPrivateAddresses: true, send: false },
    telemetry: { tracerProvider, meterProvider },
    logger,
  });
  await platform.start();
  cleanups.push(
    () => platform.stop(),
    () => runtime.close(),
  );
  await platform.settings.store(alice, { llm_api_key: LLM_KEY });
  const webhook = await platform.webhooks.register(alice, { name: 'Linear', source: 'linear' });
  const secret = webhook.webhook_secret as string;
  const send = (payload: unknown, extra: Record<string, string> = {}) => {
    const body = Buffer.from(JSON.stringify(payload));
    return platform.events.ingest('acme', 'linear', {
      headers: { ...signatureHeaders({ scheme: 'hmac-sha256', secret, body, now: new Date() }), ...extra },
      body,
    });
  };
  return { platform, send, secret };
}

const named = (name: string) => spans.getFinishedSpans().filter((span) => span.name === name);
const one = (name: string): ReadableSpan => {
  const found = named(name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
};
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

async function collect(): Promise<ResourceMetrics> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  return resourceMetrics;
}

/** Every data point of `name`, as attributes and value (a histogram's count). */
function points(metrics: ResourceMetrics, name: string): { attributes: Record<string, unknown>; value: number }[] {
  const out: { attributes: Record<string, unknown>; value: number }[] = [];
  for (const scope of metrics.scopeMetrics)
    for (const metric of scope.metrics) {
      if (metric.descriptor.name !== name) continue;
      for (const point of metric.dataPoints) {
        const value = typeof point.value === 'number' ? point.value : (point.value as { count: number }).count;
        out.push({ attributes: point.attributes, value });
      }
    }
  return out;
}

describe('traces', () => {
  it('follows a delivery from the sender’s traceparent through matching and the run to its sandbox commands and outbound message', async () => {
    const { platform, send, secret } = await setup();
    const subscriber = await startSubscriber();
    cleanups.push(() => subscriber.close());
    await platform.subscriptions.create(alice, { url: subscriber.url, event_types: ['run.completed'] });
    const automation = await platform.automations.create(alice, {
      name: 'triage',
      trigger: { type: 'event', source: 'linear', on: 'Issue' },
      instructions: 'Triage it',
    });
    const answer = (await send({ type: 'Issue', title: PAYLOAD_VALUE }, { traceparent: SENDER_PARENT })) as { delivery_id: string; runs_created: string[] };
    const runId = answer.runs_created[0] as string;
    await vi.waitFor(async () => expect((await platform.storage.runs.get('acme', runId))?.status).toBe('COMPLETED'), { timeout: 10_000 });
    // The run's outbound message, sent by hand: its request carries the trace on.
    await vi.waitFor(async () => expect(await platform.outbound.tick()).toBe(1));

    const ingest = one('agent_platform.ingest');
    expect(ingest.spanContext().traceId).toBe(SENDER_TRACE);
    expect(parentOf(ingest)).toBe('00f067aa0ba902b7');
    expect(ingest.attributes).toMatchObject({
      'agent_platform.source': 'linear',
      'agent_platform.org.id': 'acme',
      'agent_platform.event_key': 'Issue',
      'agent_platform.delivery.outcome': 'matched',
      'agent_platform.delivery.matched': 1,
      'agent_platform.delivery.id': answer.delivery_id,
    });
    const match = one('agent_platform.match');
    expect(parentOf(match)).toBe(ingest.spanContext().spanId);
    expect(match.attributes['agent_platform.automations.matched']).toBe(1);

    // The run joins the delivery's trace, as a child of its span, though it ran later.
    const run = one('agent_platform.run');
    expect(run.spanContext().traceId).toBe(SENDER_TRACE);
    expect(parentOf(run)).toBe(ingest.spanContext().spanId);
    expect(run.attributes).toMatchObject({
      'agent_platform.run.id': runId,
      'agent_platform.automation.id': automation.id,
      'agent_platform.run.status': 'COMPLETED',
      'agent_platform.run.attempt': 1,
    });
    // Log lines carry the ids of the span they were written in.
    const delivered = lines.find((line) => line.kind === 'delivery');
    expect(delivered).toMatchObject({ trace_id: SENDER_TRACE, span_id: ingest.spanContext().spanId });
    const transitions = lines.filter((line) => line.kind === 'run');
    expect(transitions.map((line) => line.to)).toEqual(['RUNNING', 'COMPLETED']);
    for (const line of transitions) expect(line).toMatchObject({ trace_id: SENDER_TRACE, span_id: run.spanContext().spanId });
    const sandboxStart = one('agent_platform.sandbox.start');
    expect(parentOf(sandboxStart)).toBe(run.spanContext().spanId);
    const commands = named('agent_platform.sandbox.exec');
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command.spanContext().traceId).toBe(SENDER_TRACE);
    expect(commands.some((command) => command.attributes['process.exit.code'] === 0)).toBe(true);

    const outbound = one('agent_platform.outbound.send');
    expect(outbound.spanContext().traceId).toBe(SENDER_TRACE);
    expect(outbound.attributes).toMatchObject({ 'agent_platform.outbound.event_type': 'run.completed', 'http.response.status_code': 200 });
    const [request] = subscriber.received;
    expect(request?.headers.traceparent).toBe(`00-${SENDER_TRACE}-${outbound.spanContext().spanId}-01`);

    // No payload value, secret or key in any attribute of any span.
    const values = spans.getFinishedSpans().flatMap((span) => Object.values(span.attributes).map(String));
    for (const forbidden of [PAYLOAD_VALUE, secret, LLM_KEY, 'Triage it']) expect(values.filter((value) => value.includes(forbidden))).toEqual([]);
  });

  it('starts a trace of its own without a traceparent, and ignores a malformed one', async () => {
    const { send } = await setup();
    await send({ type: 'Issue' }, { traceparent: 'garbage' });
    await send({ type: 'Issue' }, { traceparent: `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01` });
    const ingests = named('agent_platform.ingest');
    expect(ingests).toHaveLength(2);
    for (const span of ingests) {
      expect(span.spanContext().traceId).not.toBe('0'.repeat(32));
      expect(parentOf(span)).toBeUndefined();
    }
  });

  it('continues the host’s own HTTP span when one is active', async () => {
    const { send } = await setup();
    const tracer = tracerProvider.getTracer('host');
    await tracer.startActiveSpan('POST /api/automation/v1/events', async (server) => {
      await send({ type: 'Issue' }, { traceparent: SENDER_PARENT });
      server.end();
    });
    const host = one('POST /api/automation/v1/events');
    expect(parentOf(one('agent_platform.ingest'))).toBe(host.spanContext().spanId);
  });

  it('marks a refused delivery', async () => {
    const { platform } = await setup();
    const body = Buffer.from('{}');
    await expect(platform.events.ingest('acme', 'linear', { headers: { 'x-signature': 'nope' }, body })).rejects.toThrow();
    expect(one('agent_platform.ingest').attributes['agent_platform.delivery.outcome']).toBe('refused');
  });
});

describe('metrics', () => {
  it('counts deliveries by source and outcome, runs by status, and reads the queue gauges from storage', async () => {
    const { platform, send } = await setup();
    await platform.automations.create(alice, { name: 'triage', trigger: { type: 'event', source: 'linear', on: 'Issue' }, instructions: 'go' });
    const before = await collect();
    const countOf = (metrics: ResourceMetrics, name: string, attributes: Record<string, unknown>) =>
      points(metrics, name)
        .filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value))
        .reduce((sum, point) => sum + point.value, 0);
    const matchedBefore = countOf(before, 'agent_platform.deliveries', { source: 'linear', outcome: 'matched' });
    const completedBefore = countOf(before, 'agent_platform.runs.finished', { status: 'COMPLETED' });

    const answer = (await send({ type: 'Issue', title: PAYLOAD_VALUE })) as { runs_created: string[] };
    await send({ type: 'Comment' });
    await expect(platform.events.ingest('acme', 'linear', { headers: {}, body: Buffer.from('{}') })).rejects.toThrow();
    await expect(platform.events.ingest('acme', 'made-up-by-caller', { headers: {}, body: Buffer.from('{}') })).rejects.toThrow();
    await vi.waitFor(async () => expect((await platform.storage.runs.get('acme', answer.runs_created[0] as string))?.status).toBe('COMPLETED'), {
      timeout: 10_000,
    });

    const after = await collect();
    expect(countOf(after, 'agent_platform.deliveries', { source: 'linear', outcome: 'matched' }) - matchedBefore).toBe(1);
    expect(countOf(after, 'agent_platform.deliveries', { source: 'linear', outcome: 'unmatched' })).toBeGreaterThanOrEqual(1);
    expect(countOf(after, 'agent_platform.deliveries', { source: 'linear', outcome: 'refused' })).toBeGreaterThanOrEqual(1);
    expect(countOf(after, 'agent_platform.ingest.duration', { source: 'linear' })).toBeGreaterThanOrEqual(3);
    // A source nobody registered is not a label value: the caller chose it.
    expect(countOf(after, 'agent_platform.deliveries', { source: '(unknown)', outcome: 'refused' })).toBeGreaterThanOrEqual(1);
    expect(countOf(after, 'agent_platform.deliveries', { source: 'made-up-by-caller' })).toBe(0);
    expect(countOf(after, 'agent_platform.runs.finished', { status: 'COMPLETED' }) - completedBefore).toBe(1);
    expect(countOf(after, 'agent_platform.run.duration', { status: 'COMPLETED' })).toBeGreaterThanOrEqual(1);
    expect(countOf(after, 'agent_platform.sandbox.commands', { runtime: 'process', result: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(points(after, 'agent_platform.queue.depth')).toEqual([{ attributes: {}, value: 0 }]);
    expect(points(after, 'agent_platform.queue.oldest_age')).toEqual([{ attributes: {}, value: 0 }]);

    // Labels hold no ids and no payload values.
    for (const scope of after.scopeMetrics)
      for (const metric of scope.metrics)
        for (const point of metric.dataPoints)
          for (const value of Object.values(point.attributes)) {
            expect(String(value)).not.toContain(PAYLOAD_VALUE);
            expect(String(value)).not.toMatch(/^(run|dlv|auto)_/);
          }
  });

  it('reports PENDING depth, the oldest one’s age and live runs per org from storage', async () => {
    const { platform } = await setup();
    await platform.executor?.stop();
    const created = new Date(Date.now() - 90_000).toISOString();
    const base = { automation_id: 'auto_x', delivery_id: null, trigger: 'manual' as const, event_key: null, attempt: 0, conversation_id: null };
    const rest = { sandbox_id: null, error_detail: null, created_by: 'alice', started_at: null, completed_at: null, dispatch_payload_json: null };
    await platform.storage.runs.insertMany([
      { ...base, ...rest, id: 'run_p1', org_id: 'acme', status: 'PENDING', created_at: created },
      { ...base, ...rest, id: 'run_r1', org_id: 'globex', status: 'RUNNING', created_at: created, started_at: created },
    ]);
    const metrics = await collect();
    expect(points(metrics, 'agent_platform.queue.depth')).toEqual([{ attributes: {}, value: 1 }]);
    const [age] = points(metrics, 'agent_platform.queue.oldest_age');
    expect(age?.value).toBeGreaterThanOrEqual(89);
    expect(points(metrics, 'agent_platform.runs.live')).toEqual([{ attributes: { org: 'globex' }, value: 1 }]);
  });
});

describe('BoundedLabel', () => {
  it('keeps the first values and reports the rest as other', () => {
    const label = new BoundedLabel(2, 10);
    expect([label.of('a'), label.of('b'), label.of('c'), label.of('a'), label.of(null), label.of('x'.repeat(20))]).toEqual([
      'a',
      'b',
      OTHER_LABEL,
      'a',
      'none',
      OTHER_LABEL,
    ]);
  });
});

// The API's global stays untouched: the platform took the providers it was given.
it('leaves the global tracer provider alone', () => {
  expect(trace.getTracerProvider().getTracer('x').startSpan('y').isRecording()).toBe(false);
});
