/**
 * The server's OpenTelemetry setup: the Prometheus provider registered globally and served on the
 * API port or a port of its own, `/metrics` on the Fastify app, spans exported over OTLP only
 * with an endpoint (and flushed at shutdown), and log lines naming the active span.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { context, metrics, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createFastifyApp } from './app.js';
import { createLogger, traceMixin } from './logger.js';
import { startTelemetry, type ServerTelemetry } from './telemetry.js';

const silent = pino({ level: 'silent' });
const base = { metrics: true, metricsPort: null, otlpTraces: false, host: '127.0.0.1' };
const started: ServerTelemetry[] = [];
const start = async (config: Partial<typeof base> & { metricsPort?: number | null }) => {
  const telemetry = await startTelemetry({ ...base, ...config }, silent);
  started.push(telemetry);
  return telemetry;
};
afterEach(async () => {
  for (const telemetry of started.splice(0)) await telemetry.shutdown();
});

describe('startTelemetry', () => {
  it('registers the Prometheus provider globally, and no tracer provider without an OTLP endpoint', async () => {
    const telemetry = await start({});
    expect(telemetry.options.tracerProvider).toBeUndefined();
    expect(telemetry.options.meterProvider).toBeDefined();
    expect(metrics.getMeterProvider()).toBe(telemetry.options.meterProvider);
    expect(telemetry.metricsOnApiPort).toBe(true);
    metrics.getMeter('test').createCounter('agent_platform.test').add(3);
    const scraped = await scrape(telemetry);
    expect(scraped).toMatch(/^agent_platform_test_total\{.*\} 3$/m);
    expect(scraped).toMatch(/^target_info\{service_name="agent-platform",service_version="[^"]+",/m);
    // Nothing records spans.
    expect(trace.getTracer('test').startSpan('x').isRecording()).toBe(false);
  });

  it('installs nothing for metrics with AGENT_PLATFORM_METRICS=off', async () => {
    const telemetry = await start({ metrics: false });
    expect(telemetry.options).toEqual({});
    expect(telemetry.metricsHandler).toBeNull();
    expect(telemetry.metricsOnApiPort).toBe(false);
  });

  it('serves /metrics on a port of its own with AGENT_PLATFORM_METRICS_PORT (a worker’s), and closes it at shutdown', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _encoding, done) => done(void lines.push(chunk.toString())) }));
    const telemetry = await startTelemetry({ ...base, metricsPort: 0 }, logger);
    expect(telemetry.metricsOnApiPort).toBe(false);
    const url: string = JSON.parse(lines.find((line) => line.includes('metricsUrl'))!).metricsUrl;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url.replace(/\/metrics$/, '/other'))).status).toBe(404);
    await telemetry.shutdown();
    await expect(fetch(url)).rejects.toThrow();
  });

  it('exports spans over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, flushed at shutdown, as service agent-platform', async () => {
    const posts: { url?: string; type?: string; bytes: number }[] = [];
    const collector: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        posts.push({ url: request.url, type: request.headers['content-type'], bytes: Buffer.concat(chunks).length });
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    try {
      const telemetry = await startTelemetry({ ...base, metrics: false, otlpTraces: true }, silent);
      expect(telemetry.options.tracerProvider).toBeDefined();
      const span = trace.getTracer('test').startSpan('work');
      expect(span.isRecording()).toBe(true);
      span.end();
      await telemetry.shutdown();
      expect(posts).toEqual([{ url: '/v1/traces', type: 'application/x-protobuf', bytes: expect.any(Number) }]);
      expect(posts[0]!.bytes).toBeGreaterThan(0);
    } finally {
      if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
      await new Promise((resolve) => collector.close(resolve));
    }
  });
});

describe('/metrics on the Fastify app', () => {
  const platform = () =>
    createAgentPlatform({
      storage: createMemoryStorage(),
      secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
      publicUrl: 'http://localhost',
    });

  it('is served without credentials when given a handler', async () => {
    const telemetry = await start({});
    const app = await createFastifyApp(platform(), silent, { metrics: telemetry.metricsHandler });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.body).toContain('target_info');
    await app.close();
  });

  it('is not there without one', async () => {
    const app = await createFastifyApp(platform(), silent);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    await app.close();
  });
});

describe('log lines inside a span', () => {
  it('carry trace_id and span_id of the active span, and only inside one; a line’s own fields win', () => {
    const provider = new NodeTracerProvider();
    provider.register();
    try {
      const lines: Record<string, unknown>[] = [];
      const logger = createLogger('info', {
        format: 'json',
        destination: new Writable({ write: (chunk, _e, done) => done(void lines.push(JSON.parse(chunk.toString()))) }),
      });
      logger.info('outside');
      const span = trace.getTracer('test').startSpan('work');
      context.with(trace.setSpan(context.active(), span), () => {
        logger.info('inside');
        logger.info({ trace_id: 'from-the-line' }, 'own');
      });
      span.end();
      const { traceId, spanId } = span.spanContext();
      expect(lines[0]).not.toHaveProperty('trace_id');
      expect(lines[1]).toMatchObject({ msg: 'inside', trace_id: traceId, span_id: spanId });
      expect(lines[2]).toMatchObject({ msg: 'own', trace_id: 'from-the-line', span_id: spanId });
      expect(traceMixin()).toEqual({});
    } finally {
      trace.disable();
      context.disable();
    }
  });
});

async function scrape(telemetry: ServerTelemetry): Promise<string> {
  const server = createServer((request, response) => void telemetry.metricsHandler?.(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).text();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
