/**
 * One log line per HTTP request, written when it is answered: reads that succeed at debug (a
 * console tab polls every 2 s), changes at info, refusals at warn; the path without its query (a
 * `?session_api_key=` never reaches the log).
 */
import { Writable } from 'node:stream';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createFastifyApp } from './app.js';

describe('the request log of the Fastify app', () => {
  it('writes one line per request, at a level by method and status, without the query', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const platform = createAgentPlatform({
      storage: createMemoryStorage(),
      secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
      publicUrl: 'http://localhost',
    });
    const app = await createFastifyApp(platform, pino({ level: 'debug' }, sink));
    await app.inject({ method: 'GET', url: '/health' });
    await app.inject({ method: 'GET', url: '/api/keys?session_api_key=secret-in-the-query-0000' });
    await app.inject({ method: 'POST', url: '/api/keys', payload: {} });
    await app.close();
    const requests = lines.filter((line) => typeof line.status === 'number');
    expect(requests.map((line) => [line.level, line.msg])).toEqual([
      [20, 'GET /health 200'],
      [40, 'GET /api/keys 401'],
      [40, 'POST /api/keys 401'],
    ]);
    expect(lines.some((line) => line.msg === 'incoming request' || line.msg === 'request completed')).toBe(false);
    expect(JSON.stringify(lines)).not.toContain('secret-in-the-query');
  });
});
