/**
 * Starts the real API on each framework binding, on a loopback port, over in-memory storage,
 * with three principals: alice and bob share org `acme`; mallory is in org `evil`.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import {
  createAesGcmSecretBox,
  createAgentPlatform,
  generateSecretKey,
  type AgentPlatform,
  type AgentPlatformOptions,
  type StorageAdapter,
} from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import express from 'express';
import Fastify from 'fastify';
import { createExpressRouter, expressErrorHandler, expressNotFoundHandler, hardenNodeServer } from '../src/express.js';
import { agentPlatformPlugin, fastifyServerOptions, installFastifyErrorHandlers } from '../src/fastify.js';
import { attachEventSockets } from '../src/streaming/event-sockets.js';
import { createNodeHandler } from '../src/node-handler.js';
import type { ServerLimits } from '../src/node-http/node-server.js';
import type { HandlerLogger } from '../src/exchange/error-response.js';

export const KEYS = {
  alice: 'alice-key-0123456789abcdef',
  bob: 'bob-key-0123456789abcdef',
  mallory: 'mallory-key-0123456789abcdef',
} as const;

export interface Harness {
  baseUrl: string;
  platform: AgentPlatform;
  storage: StorageAdapter;
  /** Every line the handler logged. */
  logs: string[];
  close(): Promise<void>;
  /** fetch with alice's key by default; `as: null` sends no key. */
  request(method: string, path: string, init?: RequestOptions): Promise<ApiResponse>;
}

export interface RequestOptions {
  as?: keyof typeof KEYS | null;
  json?: unknown;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface HarnessOptions {
  storage?: StorageAdapter;
  maxBodyBytes?: number;
  /** Extra engine options (GitHub secrets, event limits, a clock, ...). */
  platform?: Partial<AgentPlatformOptions>;
  /** The bindings' own body deadline (`bodyTimeoutMs`); default the handler's. */
  bodyTimeoutMs?: number;
  /** Server timeouts (`fastifyServerOptions` / `hardenNodeServer`); default theirs. */
  limits?: ServerLimits;
  /** Idle time before a stream's `: ping` (and between socket pings); default the handler's. */
  heartbeatMs?: number;
  /**
   * Whether the server is set up as the reference servers set theirs up (server options,
   * hardening, error handlers). Default true; false gives the bare binding on a bare server.
   */
  hardened?: boolean;
}

export type Binding = 'fastify' | 'express' | 'node';
export const BINDINGS: Binding[] = ['fastify', 'express'];
/** Every binding, the plain Node listener (`createNodeHandler`) too. */
export const ALL_BINDINGS: Binding[] = ['fastify', 'express', 'node'];

export async function startHarness(binding: Binding, options: HarnessOptions = {}): Promise<Harness> {
  const storage = options.storage ?? createMemoryStorage();
  const platform = createAgentPlatform({
    storage,
    secrets: createAesGcmSecretBox({ keys: { test: generateSecretKey() } }),
    publicUrl: 'https://agents.example.com',
    ...options.platform,
  });
  await platform.apiKeys.seed({ userId: 'alice', orgId: 'acme', key: KEYS.alice });
  await platform.apiKeys.seed({ userId: 'bob', orgId: 'acme', key: KEYS.bob });
  await platform.apiKeys.seed({ userId: 'mallory', orgId: 'evil', key: KEYS.mallory });
  const logs: string[] = [];
  const logger: HandlerLogger = {
    error: (object, message) => logs.push(JSON.stringify({ ...object, message })),
    warn: (object, message) => logs.push(JSON.stringify({ ...object, message })),
  };
  const handlerOptions = {
    platform,
    logger,
    ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.bodyTimeoutMs !== undefined ? { bodyTimeoutMs: options.bodyTimeoutMs } : {}),
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
  };
  const hardened = options.hardened ?? true;

  let baseUrl: string;
  let close: () => Promise<void>;
  if (binding === 'fastify') {
    const app = Fastify({ logger: false, ...(hardened ? fastifyServerOptions(options.limits) : {}) });
    await app.register(agentPlatformPlugin, handlerOptions);
    if (hardened) installFastifyErrorHandlers(app, { logger });
    else app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    close = () => app.close();
  } else {
    let server: Server;
    if (binding === 'express') {
      const app = express();
      app.use(createExpressRouter(handlerOptions));
      if (hardened) {
        app.use(expressNotFoundHandler());
        app.use(expressErrorHandler({ logger }));
      } else {
        app.use((_request, response) => {
          response.status(404).json({ detail: 'Not Found' });
        });
      }
      server = createServer(app);
    } else {
      server = createServer(createNodeHandler(handlerOptions));
    }
    if (hardened) hardenNodeServer(server, options.limits);
    const sockets = attachEventSockets(server, { platform, logger, ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      await sockets.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    };
  }

  async function request(method: string, path: string, init: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...init.headers };
    const as = init.as === undefined ? 'alice' : init.as;
    if (as) headers['x-session-api-key'] ??= KEYS[as];
    let body: string | Uint8Array | undefined = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(baseUrl + path, { method, headers, body });
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  return { baseUrl, platform, storage, logs, close, request };
}
