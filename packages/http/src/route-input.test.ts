/**
 * What the handler validates before a route's `handle`: a `defineRoute` route's path parameters,
 * query and body, with its schemas (one 422 for all their issues, after the body's own checks);
 * and routes still declared as untyped `RouteDefinition`s, served as before `defineRoute` (their
 * query as `URLSearchParams`, their body parsed but not validated, `auth: false` as no credential).
 */
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { RouteDefinition } from './exchange/types.js';
import { KEYS } from '../test-support/harness.js';

vi.mock('./routes/openhands-routes.js', async () => {
  const { defineRoute } = await import('./routing/define-route.js');
  const typed = defineRoute({
    method: 'POST',
    path: '/api/typed/{id}',
    operationId: 'typed',
    summary: 'A typed route',
    tag: 'test',
    params: z.object({ id: z.string().startsWith('thing_') }),
    query: z.object({ tags: z.array(z.string()).max(2).optional(), limit: z.coerce.number().max(5).default(1) }),
    body: { schema: z.object({ name: z.string() }), required: false },
    responses: { 200: { description: 'What it got', schema: z.object({ params: z.unknown(), query: z.unknown(), body: z.unknown() }) } },
    async handle({ params, query, body }) {
      return { status: 200, body: { params, query, body: body ?? null } };
    },
  });
  const routes: (RouteDefinition | typeof typed)[] = [
    typed,
    {
      method: 'POST',
      path: '/api/untyped/{id}',
      operationId: 'untyped',
      summary: 'An untyped route',
      tag: 'test',
      auth: false,
      query: z.object({ limit: z.coerce.number().max(5) }),
      body: { schema: z.object({ name: z.string() }), required: false },
      responses: { 200: { description: 'What it got' } },
      async handle({ params, query, body }) {
        return { status: 200, body: { params, query: query instanceof URLSearchParams ? query.getAll('limit') : 'parsed', body: body ?? null } };
      },
    },
  ];
  return { openHandsRoutes: routes };
});

const { createHttpHandler } = await import('./handler.js');

describe('an untyped RouteDefinition', () => {
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
  });
  const handler = createHttpHandler(platform);
  const post = (url: string, body: string | null) =>
    handler.handle({
      method: 'POST',
      url,
      headers: body === null ? {} : { 'content-type': 'application/json' },
      body: body === null ? null : new TextEncoder().encode(body),
    });

  it('gets its query raw and its body unvalidated, with no credentials', async () => {
    const answer = await post('/api/untyped/a%20b?limit=9&limit=10', '{"name": 42}');
    expect(answer?.status).toBe(200);
    expect(JSON.parse(String(answer?.body ?? ''))).toEqual({ params: { id: 'a b' }, query: ['9', '10'], body: { name: 42 } });
  });

  it('still gets the handler’s own checks: bad ids, bodies and null', async () => {
    expect((await post('/api/untyped/a%00b', null))?.status).toBe(404);
    expect((await post('/api/untyped/x', '{"name":'))?.status).toBe(400);
    expect((await post('/api/untyped/x', 'null'))?.status).toBe(422);
    expect((await post('/api/untyped/x?q=a%01', null))?.status).toBe(422);
  });

  it('is in the table and the OpenAPI document, with no security', () => {
    expect(handler.routes.map((route) => route.operationId)).toContain('untyped');
    const document = handler.openApiDocument() as { paths: Record<string, Record<string, { security: unknown[] }>> };
    expect(document.paths['/api/untyped/{id}']?.post?.security).toEqual([]);
  });
});

describe('a defineRoute route', () => {
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost',
  });
  const handler = createHttpHandler(platform);
  const seeded = platform.apiKeys.seed({ userId: 'alice', orgId: 'acme', key: KEYS.alice });
  const post = async (url: string, body: string | null, key: string | null = KEYS.alice) => {
    await seeded;
    const headers: Record<string, string> = {};
    if (key) headers['x-session-api-key'] = key;
    if (body !== null) headers['content-type'] = 'application/json';
    const answer = await handler.handle({ method: 'POST', url, headers, body: body === null ? null : new TextEncoder().encode(body) });
    return { status: answer?.status, json: JSON.parse(String(answer?.body ?? 'null')) };
  };

  it('gets its params, query and body parsed', async () => {
    const answer = await post('/api/typed/thing_1?tags=a&tags=b&limit=3&other=x&other=y', '{"name": "n", "extra": 1}');
    expect(answer).toEqual({ status: 200, json: { params: { id: 'thing_1' }, query: { tags: ['a', 'b'], limit: 3 }, body: { name: 'n' } } });
    expect((await post('/api/typed/thing_1', null)).json).toEqual({ params: { id: 'thing_1' }, query: { limit: 1 }, body: null });
  });

  it('answers one 422 with the issues of the path, the query and the body', async () => {
    const answer = await post('/api/typed/other?limit=2&limit=3&tags=a&tags=b&tags=c', '{"name": 42}');
    expect(answer.status).toBe(422);
    expect(answer.json.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['path', 'id'],
      ['query', 'limit'],
      ['query', 'tags'],
      ['body', 'name'],
    ]);
    expect(answer.json.detail[1]).toEqual({ loc: ['query', 'limit'], msg: 'Send this parameter once (it was sent 2 times)', type: 'value_error' });
    expect((await post('/api/typed/thing_1', 'null')).json.detail).toEqual([expect.objectContaining({ loc: ['body'] })]);
  });

  it('checks credentials, ids and the body’s bytes first', async () => {
    expect((await post('/api/typed/other?limit=x', '{', null)).status).toBe(401);
    expect((await post('/api/typed/a%00b?limit=x', '{')).status).toBe(404);
    expect((await post('/api/typed/other?limit=x', '{')).status).toBe(400);
    expect((await post('/api/typed/other?limit=%01', '{"name": 42}')).json.detail).toEqual([expect.objectContaining({ loc: ['query', 'limit'] })]);
  });
});
