import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { allRoutes, createHttpHandler } from './handler.js';

describe('OpenAPI document', () => {
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost:3000',
  });
  const document = createHttpHandler(platform).openApiDocument() as {
    openapi: string;
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> }; responses: Record<string, unknown> }>>;
  };

  it('is OpenAPI 3.1 and documents every route with its status codes', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const route of allRoutes()) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(Object.keys(operation!.responses).sort()).toEqual(Object.keys(route.responses).sort());
    }
    expect(document.paths['/openapi.json']?.get).toBeDefined();
  });

  it('derives request bodies from the zod schemas', () => {
    const settings = document.paths['/api/settings']?.post?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(settings?.properties ?? {})).toEqual(expect.arrayContaining(['llm_model', 'llm_api_key', 'mcp_config']));
    const webhook = document.paths['/api/automation/v1/webhooks']?.post?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(webhook?.properties ?? {})).toEqual(expect.arrayContaining(['name', 'source', 'event_key_expr', 'signature_header', 'webhook_secret']));
  });

  it('documents the event stream as text/event-stream, its errors as JSON', () => {
    const stream = document.paths['/api/v1/app-conversations/{id}/events/stream']?.get as unknown as {
      responses: Record<string, { content: Record<string, { schema: { properties?: Record<string, unknown> } }> }>;
      parameters: { name: string; in: string }[];
    };
    expect(Object.keys(stream.responses['200']!.content)).toEqual(['text/event-stream']);
    expect(Object.keys(stream.responses['200']!.content['text/event-stream']!.schema.properties ?? {})).toEqual(expect.arrayContaining(['seq', 'kind', 'data']));
    expect(Object.keys(stream.responses['404']!.content)).toEqual(['application/json']);
    expect(stream.parameters.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual(['path:id', 'query:last_event_id']);
  });

  it('serializes to JSON', () => {
    expect(() => JSON.stringify(document)).not.toThrow();
  });
});
