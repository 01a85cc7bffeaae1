/**
 * `ping()` (readiness): the engine's `GET /_ping`, against a stand-in engine on a Unix socket,
 * so it runs with or without Docker here.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Dockerode from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { PlatformError } from '@agent-platform/core';
import { createDockerRuntime } from './index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'docker-ping-'));
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

/** A stand-in engine answering `/_ping` with `status`; the paths it was asked for. */
async function engine(status: number): Promise<{ socketPath: string; asked: string[] }> {
  const socketPath = path.join(dir, `engine-${servers.length}.sock`);
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(`${request.method} ${request.url}`);
    response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'OK' : 'down');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return { socketPath, asked };
}

const runtimeOn = (socketPath: string) => createDockerRuntime({ images: ['debian:bookworm-slim'], docker: new Dockerode({ socketPath }) });

describe('DockerRuntime.ping', () => {
  it('resolves when the engine answers /_ping', async () => {
    const { socketPath, asked } = await engine(200);
    await runtimeOn(socketPath).ping?.();
    expect(asked).toEqual(['GET /_ping']);
  });

  it('throws UNAVAILABLE when the engine is not there, and after close()', async () => {
    const missing = runtimeOn(path.join(dir, 'no-engine.sock'));
    await expect(missing.ping?.()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    const { socketPath } = await engine(200);
    const closed = runtimeOn(socketPath);
    await closed.close();
    const error = await closed.ping?.().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('throws when the engine answers an error', async () => {
    const { socketPath } = await engine(500);
    await expect(runtimeOn(socketPath).ping?.()).rejects.toThrow();
  });
});
