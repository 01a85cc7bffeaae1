/**
 * Text and binary answers (a response whose `contentType` is neither JSON nor an event stream):
 * the handler sends `handle`'s string or bytes as they are, with the declared content type and
 * the route's extra headers, on every binding and through the fetch handler; errors stay JSON.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PlatformError } from '@agent-platform/core';
import { createFetchHandler } from './fetch.js';
import { contentResponse, responseKind, sentContentType } from './routing/response-kind.js';
import type { RouteDefinition } from './exchange/types.js';
import { ALL_BINDINGS, KEYS, startHarness, type Harness } from '../test-support/harness.js';

/** Bytes that are not UTF-8 (a lone 0xFF) and not at the start of their buffer: a view. */
const PAYLOAD = new Uint8Array([0, 1, 2, 0xff, 0xfe, 80, 75, 3, 4, 0]);
const VIEW = PAYLOAD.subarray(1, 9);

vi.mock('./routes/openhands-routes.js', async () => {
  const { defineRoute } = await import('./routing/define-route.js');
  const bytes = defineRoute({
    method: 'GET',
    path: '/api/test/bytes/{id}',
    operationId: 'testBytes',
    summary: 'Bytes',
    tag: 'test',
    responses: { 200: { description: 'Bytes', contentType: 'application/octet-stream' }, 404: { description: 'None' } },
    async handle({ params }) {
      if (params.id === 'missing') throw new PlatformError('NOT_FOUND', 'No such bytes');
      return { status: 200, body: VIEW, headers: { 'Content-Disposition': 'attachment; filename="b.bin"', 'content-type': 'text/html' } };
    },
  });
  const text = defineRoute({
    method: 'GET',
    path: '/api/test/text',
    operationId: 'testText',
    summary: 'Text',
    tag: 'test',
    credential: 'none',
    responses: { 200: { description: 'Text', contentType: 'text/markdown' } },
    async handle() {
      return { status: 200, body: '# Grüße ✓\n' };
    },
  });
  const broken: RouteDefinition = {
    method: 'GET',
    path: '/api/test/broken',
    operationId: 'testBroken',
    summary: 'A binary answer that is not bytes',
    tag: 'test',
    auth: false,
    responses: { 200: { description: 'Bytes', contentType: 'application/zip' } },
    async handle() {
      return { status: 200, body: { not: 'bytes' } };
    },
  };
  return { openHandsRoutes: [bytes, text, broken] };
});

describe('response kinds', () => {
  it('follow the content type', () => {
    expect(responseKind(undefined)).toBe('json');
    expect(responseKind({ description: '' })).toBe('json');
    expect(responseKind({ description: '', contentType: 'application/json' })).toBe('json');
    expect(responseKind({ description: '', contentType: 'application/problem+json; charset=utf-8' })).toBe('json');
    expect(responseKind({ description: '', contentType: 'text/event-stream' })).toBe('stream');
    expect(responseKind({ description: '', contentType: 'Text/Plain' })).toBe('text');
    expect(responseKind({ description: '', contentType: 'text/csv; charset=utf-8' })).toBe('text');
    expect(responseKind({ description: '', contentType: 'application/zip' })).toBe('binary');
    expect(responseKind({ description: '', contentType: 'image/png' })).toBe('binary');
    expect(sentContentType('text', 'text/plain')).toBe('text/plain; charset=utf-8');
    expect(sentContentType('text', 'text/plain; charset=utf-8')).toBe('text/plain; charset=utf-8');
    expect(sentContentType('binary', 'application/zip')).toBe('application/zip');
  });

  it('refuse a body that is neither text nor bytes', () => {
    expect(() => contentResponse(200, 'binary', 'application/zip', { not: 'bytes' })).toThrow(TypeError);
    expect(() => contentResponse(200, 'text', 'text/plain', undefined)).toThrow(TypeError);
    expect(contentResponse(200, 'text', 'text/plain', 'hi', { 'X-Extra': '1' })).toEqual({
      status: 200,
      headers: { 'cache-control': 'no-store', 'x-extra': '1', 'content-type': 'text/plain; charset=utf-8' },
      body: 'hi',
    });
  });
});

describe.each(ALL_BINDINGS)('text and binary answers on %s', (binding) => {
  let api: Harness;
  beforeAll(async () => {
    api = await startHarness(binding);
  });
  afterAll(async () => {
    await api.close();
  });

  const get = (path: string, method = 'GET') => fetch(`${api.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${KEYS.alice}` } });

  it('sends bytes unchanged, with the declared content type and the route’s headers', async () => {
    const response = await get('/api/test/bytes/one');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="b.bin"');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-length')).toBe(String(VIEW.byteLength));
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(VIEW);
  });

  it('sends text as UTF-8, with a charset', async () => {
    const response = await get('/api/test/text');
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await response.text()).toBe('# Grüße ✓\n');
  });

  it('answers HEAD with the headers only', async () => {
    const response = await get('/api/test/bytes/one', 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers errors as JSON, and a body of the wrong kind as a logged 500', async () => {
    const missing = await get('/api/test/bytes/missing');
    expect([missing.status, missing.headers.get('content-type'), await missing.json()]).toEqual([
      404,
      'application/json; charset=utf-8',
      { detail: 'No such bytes' },
    ]);
    expect((await fetch(`${api.baseUrl}/api/test/bytes/one`)).status).toBe(401);
    const broken = await get('/api/test/broken');
    expect([broken.status, await broken.json()]).toEqual([500, { detail: 'Internal server error' }]);
    expect(api.logs.some((line) => line.includes('response could not be serialized') && line.includes('/api/test/broken'))).toBe(true);
  });
});

describe('text and binary answers through the fetch handler', () => {
  it('answers bytes and text as they are', async () => {
    const api = await startHarness('node');
    const handler = createFetchHandler(api.platform);
    const bytes = await handler(new Request('http://platform.test/api/test/bytes/one', { headers: { authorization: `Bearer ${KEYS.alice}` } }));
    expect([bytes.status, bytes.headers.get('content-type'), bytes.headers.get('content-disposition')]).toEqual([
      200,
      'application/octet-stream',
      'attachment; filename="b.bin"',
    ]);
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(VIEW);
    const text = await handler(new Request('http://platform.test/api/test/text'));
    expect([text.headers.get('content-type'), await text.text()]).toEqual(['text/markdown; charset=utf-8', '# Grüße ✓\n']);
    await api.close();
  });

  it('documents them in the OpenAPI document with their content types', async () => {
    const api = await startHarness('node');
    const document = (await (await fetch(`${api.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>>;
    };
    expect(document.paths['/api/test/bytes/{id}']?.get?.responses['200']?.content).toEqual({
      'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
    });
    expect(document.paths['/api/test/text']?.get?.responses['200']?.content).toEqual({ 'text/markdown': { schema: { type: 'string' } } });
    await api.close();
  });
});
