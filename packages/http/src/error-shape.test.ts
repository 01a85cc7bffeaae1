/**
 * Hosts that use the helpers get the API's error shape for their own routes' failures too, and
 * never an echo of the request.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { expressErrorHandler, expressNotFoundHandler, hardenNodeServer } from './express.js';
import { fastifyServerOptions, installFastifyErrorHandlers } from './fastify.js';
import { resolveServerLimits } from './node-http/node-server.js';

const broken = `{"secret": "${'s'.repeat(500)}`;
const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

async function expectShape(response: Response, status: number): Promise<void> {
  expect(response.status).toBe(status);
  const text = await response.text();
  expect(JSON.parse(text)).toEqual({ detail: expect.any(String) });
  expect(text).not.toContain('sss');
}

describe('Fastify host routes with installFastifyErrorHandlers', () => {
  let app: FastifyInstance;
  let base: string;
  const logged: string[] = [];
  beforeAll(async () => {
    app = Fastify({ ...fastifyServerOptions(), logger: false });
    app.post('/echo', async (request) => ({ got: request.body }));
    app.get('/boom', async () => {
      throw new Error('secret cause');
    });
    installFastifyErrorHandlers(app, { logger: { error: (_o, message) => logged.push(message), warn: () => {} } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('answers a malformed body, an unknown path and a failing route as {"detail"}', async () => {
    await expectShape(await post(`${base}/echo`, broken), 400);
    await expectShape(await fetch(`${base}/nowhere/${'s'.repeat(500)}`), 404);
    const boom = await fetch(`${base}/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ detail: 'Internal server error' });
    expect(logged).toContain('unhandled error in request handler');
  });
});

describe('Express host routes with expressNotFoundHandler and expressErrorHandler', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = express();
    app.post('/echo', express.json(), (request, response) => {
      response.json({ got: request.body });
    });
    app.get('/boom', () => {
      throw new Error('secret cause');
    });
    app.use(expressNotFoundHandler());
    app.use(expressErrorHandler());
    server = hardenNodeServer(createServer(app));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers a malformed body, an unknown path and a failing route as {"detail"}', async () => {
    const malformed = await post(`${base}/echo`, broken);
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ detail: 'Request body is not valid JSON' });
    await expectShape(await fetch(`${base}/nowhere/${'s'.repeat(500)}`), 404);
    const boom = await fetch(`${base}/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ detail: 'Internal server error' });
  });

  it('sets the server’s timeouts', () => {
    expect(server.requestTimeout).toBe(30_000);
    expect(server.headersTimeout).toBe(15_000);
  });
});

describe('server limits', () => {
  it('defaults to 15 s for headers and 30 s for the whole request, and keeps headers within the request', () => {
    expect(resolveServerLimits()).toMatchObject({ headersTimeoutMs: 15_000, requestTimeoutMs: 30_000, checkIntervalMs: 1_000 });
    expect(resolveServerLimits({ requestTimeoutMs: 5_000 })).toMatchObject({ headersTimeoutMs: 5_000, requestTimeoutMs: 5_000, checkIntervalMs: 500 });
    expect(resolveServerLimits({ requestTimeoutMs: 0, headersTimeoutMs: 0 })).toMatchObject({ headersTimeoutMs: 0, requestTimeoutMs: 0 });
    expect(() => resolveServerLimits({ requestTimeoutMs: -1 })).toThrow(RangeError);
  });

  it('gives Fastify options that spread into Fastify()', () => {
    const options = fastifyServerOptions({ requestTimeoutMs: 20_000, headersTimeoutMs: 10_000 });
    expect(options).toMatchObject({ requestTimeout: 20_000, http: { headersTimeout: 10_000, requestTimeout: 20_000 }, return503OnClosing: false });
    expect(typeof options.frameworkErrors).toBe('function');
    expect(typeof options.clientErrorHandler).toBe('function');
  });
});
