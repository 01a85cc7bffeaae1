/**
 * The Prometheus handler mounted as its doc comment shows, on Fastify and on Express, serving what
 * the provider's meters recorded in Prometheus' text format.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrometheusMetrics, PROMETHEUS_CONTENT_TYPE, type PrometheusMetrics } from '../metrics.js';

function record(metrics: PrometheusMetrics): void {
  const meter = metrics.meterProvider.getMeter('@agent-platform/test');
  meter.createCounter('agent_platform.deliveries').add(2, { source: 'ci', outcome: 'matched' });
  meter.createHistogram('agent_platform.run.duration', { unit: 's' }).record(3, { status: 'COMPLETED' });
  meter.createObservableGauge('agent_platform.queue.depth').addCallback((result) => result.observe(5));
}

async function expectScrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe(PROMETHEUS_CONTENT_TYPE);
  const text = await response.text();
  expect(text).toMatch(/^# HELP agent_platform_deliveries_total /m);
  expect(text).toMatch(/^agent_platform_deliveries_total\{[^}]*outcome="matched"[^}]*\} 2$/m);
  expect(text).toMatch(/^agent_platform_run_duration_count\{[^}]*status="COMPLETED"[^}]*\} 1$/m);
  expect(text).toMatch(/^agent_platform_queue_depth\{[^}]*\} 5$/m);
  return text;
}

const listening = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe('createPrometheusMetrics', () => {
  it('scrapes what was recorded, with the resource as target_info', async () => {
    const metrics = createPrometheusMetrics();
    record(metrics);
    const text = await metrics.scrape();
    expect(text).toMatch(/^target_info\{/m);
    expect(text).toContain('otel_scope_name="@agent-platform/test"');
    await metrics.shutdown();
  });

  it('leaves out the scope labels and target_info when asked, and takes a prefix', async () => {
    const metrics = createPrometheusMetrics({ prefix: 'myapp', withoutScopeInfo: true, withoutTargetInfo: true });
    record(metrics);
    const text = await metrics.scrape();
    expect(text).toMatch(/^myapp_agent_platform_deliveries_total\{source="ci",outcome="matched"\} 2$/m);
    expect(text).not.toContain('otel_scope_name');
    expect(text).not.toContain('target_info');
    await metrics.shutdown();
  });
});

describe('mounted on Fastify (reply.hijack)', () => {
  let app: FastifyInstance;
  let base: string;
  const metrics = createPrometheusMetrics();
  beforeAll(async () => {
    record(metrics);
    app = Fastify();
    app.get('/metrics', (request, reply) => {
      reply.hijack();
      void metrics.handler(request.raw, reply.raw);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await metrics.shutdown();
  });

  it('answers a scrape', async () => {
    await expectScrape(`${base}/metrics`);
  });
});

describe('mounted on Express and on plain node:http', () => {
  const servers: Server[] = [];
  const metrics = createPrometheusMetrics();
  beforeAll(() => record(metrics));
  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await metrics.shutdown();
  });

  it('answers a scrape on Express (app.get)', async () => {
    const app = express();
    app.get('/metrics', metrics.handler);
    const server = createServer(app);
    servers.push(server);
    await expectScrape(`${await listening(server)}/metrics`);
  });

  it('answers GET and HEAD on node:http, and 405 to other methods', async () => {
    const server = createServer(metrics.handler);
    servers.push(server);
    const base = await listening(server);
    await expectScrape(base);
    const head = await fetch(base, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(base, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
