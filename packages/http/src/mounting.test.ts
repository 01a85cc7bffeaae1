/**
 * Hosts mount the API beside their own routes: under a prefix, next to their own JSON parsers,
 * and the API must neither break those routes nor be broken by them.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey, type AgentPlatform } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { createExpressRouter } from './express.js';
import { agentPlatformPlugin } from './fastify.js';
import { createFetchHandler } from './fetch.js';

const KEY = 'mount-key-0123456789abcdef';

async function makePlatform(): Promise<AgentPlatform> {
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
  });
  await platform.apiKeys.seed({ userId: 'u', orgId: 'o', key: KEY });
  return platform;
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-session-api-key': KEY }, body: JSON.stringify(body) });

describe('Fastify plugin under a prefix, beside host routes', () => {
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    app = Fastify();
    app.post('/echo', async (request) => ({ got: request.body }));
    await app.register(agentPlatformPlugin, { platform: await makePlatform(), prefix: '/platform' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('serves the API under the prefix', async () => {
    expect((await fetch(`${base}/platform/health`)).status).toBe(200);
    const created = await post(`${base}/platform/api/automation/v1/webhooks`, { name: 'x', source: 'x' });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { webhook_url: string }).webhook_url).toBe('http://localhost/api/automation/v1/events/o/x');
  });

  it('leaves the host’s own JSON parsing alone', async () => {
    const response = await post(`${base}/echo`, { hello: 'world' });
    expect(await response.json()).toEqual({ got: { hello: 'world' } });
  });
});

describe('Express router under a path, beside a host JSON parser', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.use('/platform', createExpressRouter({ platform: await makePlatform() }));
    app.post('/echo', express.json(), (request, response) => {
      response.json({ got: request.body });
    });
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the API under the mount path and passes other paths on', async () => {
    expect((await fetch(`${base}/platform/health`)).status).toBe(200);
    expect((await post(`${base}/platform/api/settings`, { language: 'en' })).status).toBe(200);
    expect(await (await post(`${base}/echo`, { a: 1 })).json()).toEqual({ got: { a: 1 } });
  });

  it('works when a JSON parser ran before it', async () => {
    const app = express();
    app.use(express.json());
    app.use(createExpressRouter({ platform: await makePlatform() }));
    const parsed = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    try {
      const url = `http://127.0.0.1:${(parsed.address() as AddressInfo).port}`;
      expect((await post(`${url}/api/settings`, { language: 'en' })).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => parsed.close(() => resolve()));
    }
  });
});

describe('fetch handler', () => {
  it('serves web-standard requests with no socket', async () => {
    const handle = createFetchHandler(await makePlatform());
    const stored = await handle(
      new Request('http://platform.test/api/settings', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ language: 'en' }),
      }),
    );
    expect(stored.status).toBe(200);
    const got = await handle(new Request('http://platform.test/api/settings', { headers: { authorization: `Bearer ${KEY}` } }));
    expect(((await got.json()) as { language: string }).language).toBe('en');
    expect((await handle(new Request('http://platform.test/nope'))).status).toBe(404);
  });
});
