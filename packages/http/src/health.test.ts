/**
 * The probes, as orchestrators call them: `/health/live` answers while the process does;
 * `/health/ready` is 503, naming the failing check (JSON, no secret, no stack), when the storage
 * is unreachable, the schema is behind, the runtime is unreachable, or the process is stopping.
 * `/health` and `/ready` answer the same. On close, open event streams end cleanly.
 */
import { describe, expect, it } from 'vitest';
import { createCommandAgentRunner, type SandboxRuntime, type StorageAdapter } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { createProcessRuntime } from '@agent-platform/sandbox-process';
import { BINDINGS, KEYS, startHarness, type Harness } from '../test-support/harness.js';
import { idleConversation, openSocket } from '../test-support/streams.js';

const SECRET = '/var/run/secret-socket-path.sock';

async function probes(api: Harness) {
  const [live, health, ready, readyAlias] = await Promise.all(
    ['/health/live', '/health', '/health/ready', '/ready'].map((path) => api.request('GET', path, { as: null })),
  );
  expect(readyAlias!.status).toBe(ready!.status);
  expect(readyAlias!.json).toEqual(ready!.json);
  expect(health!.json).toEqual(live!.json);
  return { live: live!, ready: ready! };
}

function withStorage(overrides: Partial<StorageAdapter>): StorageAdapter {
  const memory = createMemoryStorage();
  return { ...memory, transaction: memory.transaction.bind(memory), close: memory.close.bind(memory), ...overrides };
}

describe.each(BINDINGS)('health probes on %s', (binding) => {
  it('are 200 with every check listed when ready', async () => {
    const runtime = createProcessRuntime();
    const api = await startHarness(binding, { platform: { runtime } });
    try {
      const { live, ready } = await probes(api);
      expect(live.status).toBe(200);
      expect(live.json).toEqual({ status: 'ok' });
      expect(ready.status).toBe(200);
      expect(ready.json).toEqual({
        status: 'ready',
        checks: { storage: { status: 'ok' }, migrations: { status: 'skipped', reason: 'no schema to migrate' }, runtime: { status: 'ok' } },
      });
      expect(ready.headers.get('content-type')).toMatch(/^application\/json/);
    } finally {
      await api.close();
      await runtime.close();
    }
  });

  it('answers ready 503 naming the storage once it is unreachable; live stays 200', async () => {
    const api = await startHarness(binding);
    try {
      await api.storage.close();
      const { live, ready } = await probes(api);
      expect(live.status).toBe(200);
      expect(ready.status).toBe(503);
      expect(ready.json).toEqual({
        detail: 'Not ready: storage: unreachable',
        status: 'not_ready',
        checks: {
          storage: { status: 'failed', reason: 'unreachable' },
          migrations: { status: 'skipped', reason: 'no schema to migrate' },
          runtime: { status: 'skipped', reason: 'no sandbox runtime' },
        },
      });
      expect(ready.text).not.toMatch(/stack|at .*\.ts:\d+/);
    } finally {
      await api.close();
    }
  });

  it('answers ready 503 naming a schema that is behind, or a runtime that does not answer, without the error’s text', async () => {
    const behind = await startHarness(binding, { storage: withStorage({ migrationStatus: async () => ({ applied: 2, latest: 4 }) }) });
    try {
      const { ready } = await probes(behind);
      expect(ready.status).toBe(503);
      expect(ready.json).toMatchObject({
        detail: 'Not ready: migrations: the schema is at migration 2 of 4: apply the migrations',
        checks: { storage: { status: 'ok' }, migrations: { status: 'failed' } },
      });
    } finally {
      await behind.close();
    }
    const down: SandboxRuntime = {
      ...createProcessRuntime(),
      ping: async () => {
        throw new Error(`connect ENOENT ${SECRET}`);
      },
    };
    const api = await startHarness(binding, { platform: { runtime: down } });
    try {
      const { ready } = await probes(api);
      expect(ready.status).toBe(503);
      expect(ready.json).toMatchObject({ detail: 'Not ready: runtime: unreachable', checks: { runtime: { status: 'failed', reason: 'unreachable' } } });
      expect(ready.text).not.toContain(SECRET);
    } finally {
      await api.close();
      await down.close();
    }
  });

  it('answers ready 503 "stopping" from the moment the platform starts stopping, while the API still serves', async () => {
    const api = await startHarness(binding);
    try {
      await api.platform.drain();
      const { live, ready } = await probes(api);
      expect(live.status).toBe(200);
      expect(ready.status).toBe(503);
      expect(ready.json).toMatchObject({ detail: 'The server is shutting down', status: 'stopping', checks: { storage: { status: 'ok' } } });
      expect((await api.request('GET', '/api/keys')).status).toBe(200);
    } finally {
      await api.close();
    }
  });
});

describe('closing the Fastify server', () => {
  it('ends open event streams cleanly (SSE: the response ends; WebSocket: 1001 Going Away)', async () => {
    const runtime = createProcessRuntime();
    const api = await startHarness('fastify', { platform: { runtime, agent: createCommandAgentRunner({ command: 'echo hi' }) } });
    try {
      const id = await idleConversation(api);
      const response = await fetch(`${api.baseUrl}/api/v1/app-conversations/${id}/events/stream`, { headers: { 'x-session-api-key': KEYS.alice } });
      expect(response.status).toBe(200);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      // The `retry:` hint: the stream is open.
      expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^retry: \d+/);
      const socket = await openSocket(api.baseUrl, `/sockets/events/${id}?session_api_key=${KEYS.alice}`);
      await api.close();
      // An end, not a reset: an EventSource reconnects with Last-Event-ID (to another server).
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
      expect((await socket.closed).code).toBe(1001);
    } finally {
      await runtime.close();
    }
  });
});
