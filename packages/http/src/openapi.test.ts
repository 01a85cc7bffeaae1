import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createAesGcmSecretBox, createAgentPlatform, generateSecretKey } from '@agent-platform/core';
import { createMemoryStorage } from '@agent-platform/storage-memory';
import { z } from 'zod';
import { allRoutes, createHttpHandler } from './handler.js';
import { buildOpenApiDocument } from './openapi/openapi.js';
import { credentialOf, defineRoute } from './routing/define-route.js';
import { nameSchema } from './openapi/schema-names.js';

type Schema = { $ref?: string; properties?: Record<string, unknown>; type?: string; items?: Schema };
type Content = Record<string, { schema: Schema }>;
interface Operation {
  operationId: string;
  security: Record<string, string[]>[];
  parameters: { name: string; in: string; required: boolean; schema: Schema }[];
  requestBody?: { required: boolean; content: Content };
  responses: Record<string, { description: string; content?: Content }>;
}
interface Document {
  openapi: string;
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, Operation>>;
}

const COMPONENTS = '#/components/schemas/';

/** Every `$ref` anywhere in `value`. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref') found.push(item as string);
      else refsIn(item, found);
    }
  }
  return found;
}

describe('OpenAPI document', () => {
  const platform = createAgentPlatform({
    storage: createMemoryStorage(),
    secrets: createAesGcmSecretBox({ keys: { k: generateSecretKey() } }),
    publicUrl: 'http://localhost:3000',
  });
  const document = createHttpHandler(platform).openApiDocument() as unknown as Document;
  const resolve = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref ? document.components.schemas[schema.$ref.slice(COMPONENTS.length)] : schema;

  it('is OpenAPI 3.1 and documents every route with its status codes', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const route of allRoutes()) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      // A route that takes credentials also documents the 403 of a key whose role is too weak.
      const expected = [...Object.keys(route.responses), ...(credentialOf(route) !== 'none' && !('403' in route.responses) ? ['403'] : [])];
      expect(Object.keys(operation!.responses).sort()).toEqual(expected.sort());
    }
    expect(document.paths['/openapi.json']?.get).toBeDefined();
  });

  it('is a valid OpenAPI 3.1 document, its $refs resolving (@seriousme/openapi-schema-validator)', async () => {
    const result = await new Validator().validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('names shared schemas once under components.schemas, and every $ref resolves', () => {
    const { schemas } = document.components;
    for (const name of [
      'Automation',
      'AutomationCreateInput',
      'Run',
      'WebhookView',
      'Delivery',
      'SettingsView',
      'AppConversation',
      'StartTask',
      'Sandbox',
      'ErrorBody',
      'ValidationErrorBody',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of new Set(refs)) {
      expect(ref.startsWith(COMPONENTS), ref).toBe(true);
      expect(schemas[ref.slice(COMPONENTS.length)], ref).toBeDefined();
    }
    // Records are referred to, not inlined: the automation list holds `$ref`s to Automation.
    expect(schemas.AutomationList?.properties?.automations).toEqual({ type: 'array', items: { $ref: `${COMPONENTS}Automation` } });
    // Every component is used.
    const used = new Set(refs.map((ref) => ref.slice(COMPONENTS.length)));
    expect(Object.keys(schemas).filter((name) => !used.has(name))).toEqual([]);
  });

  it('refers to every request body and JSON response by $ref', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const contents = [operation.requestBody?.content, ...Object.values(operation.responses).map((response) => response.content)];
        for (const content of contents) {
          for (const [mediaType, { schema }] of Object.entries(content ?? {})) {
            // Text and bytes (a file, a zip) are plain strings, described in place: see the test below.
            if (mediaType !== 'application/json' && mediaType !== 'text/event-stream') continue;
            expect(schema.$ref, `${method} ${path}`).toMatch(/^#\/components\/schemas\/[A-Z][A-Za-z0-9]*$/);
          }
        }
      }
    }
    expect(document.paths['/api/automation/v1']?.post?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: `${COMPONENTS}AutomationCreateInput`,
    });
    expect(document.paths['/api/automation/v1']?.post?.responses['201']?.content?.['application/json']?.schema).toEqual({ $ref: `${COMPONENTS}Automation` });
    expect(document.paths['/api/automation/v1/runs/{run_id}']?.get?.responses['404']?.content?.['application/json']?.schema).toEqual({
      $ref: `${COMPONENTS}ErrorBody`,
    });
    // Unnamed top-level schemas are named after their operation.
    expect(document.paths['/api/v1/sandboxes']?.get?.responses['200']?.content?.['application/json']?.schema).toEqual({
      $ref: `${COMPONENTS}BatchGetSandboxesResponse`,
    });
  });

  it('derives request bodies from the zod schemas', () => {
    const settings = resolve(document.paths['/api/settings']?.post?.requestBody?.content['application/json']?.schema);
    expect(Object.keys(settings?.properties ?? {})).toEqual(expect.arrayContaining(['llm_model', 'llm_api_key', 'mcp_config']));
    const webhook = resolve(document.paths['/api/automation/v1/webhooks']?.post?.requestBody?.content['application/json']?.schema);
    expect(Object.keys(webhook?.properties ?? {})).toEqual(expect.arrayContaining(['name', 'source', 'event_key_expr', 'signature_header', 'webhook_secret']));
  });

  it('documents query parameters, repeated ones as arrays', () => {
    const list = document.paths['/api/v1/app-conversations']?.get;
    expect(list?.parameters.map((parameter) => `${parameter.in}:${parameter.name}:${parameter.required}`)).toEqual([
      'query:page_id:false',
      'query:limit:false',
      'query:ids:false',
    ]);
    expect(list?.parameters.find((parameter) => parameter.name === 'ids')?.schema).toMatchObject({ type: 'array', items: { type: 'string' }, maxItems: 100 });
    const start = document.paths['/api/v1/sandboxes']?.post;
    expect(start?.parameters.map((parameter) => parameter.name)).toEqual(['sandbox_spec_id']);
  });

  it('says which credential each operation prefers', () => {
    expect(document.paths['/api/settings']?.post?.security).toEqual([{ sessionApiKey: [] }, { bearer: [] }]);
    expect(document.paths['/api/keys']?.get?.security).toEqual([{ bearer: [] }, { sessionApiKey: [] }]);
    expect(document.paths['/health']?.get?.security).toEqual([]);
    expect(document.paths['/api/automation/v1/events/github']?.post?.security).toEqual([]);
  });

  it('documents the event stream as text/event-stream, its errors as JSON', () => {
    const stream = document.paths['/api/v1/app-conversations/{id}/events/stream']?.get;
    expect(Object.keys(stream!.responses['200']!.content!)).toEqual(['text/event-stream']);
    const event = resolve(stream!.responses['200']!.content!['text/event-stream']!.schema);
    expect(Object.keys(event?.properties ?? {})).toEqual(expect.arrayContaining(['seq', 'kind', 'data']));
    expect(Object.keys(stream!.responses['404']!.content!)).toEqual(['application/json']);
    expect(stream!.parameters.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual(['path:id', 'query:last_event_id']);
  });

  it('documents text and binary answers with their content types, their errors as JSON', () => {
    const download = document.paths['/api/v1/app-conversations/{id}/download']?.get;
    expect(download?.responses['200']?.content).toEqual({ 'application/zip': { schema: { type: 'string', format: 'binary' } } });
    expect(Object.keys(download!.responses['404']!.content!)).toEqual(['application/json']);
    const file = document.paths['/api/v1/app-conversations/{id}/file']?.get;
    expect(file?.responses['200']?.content).toEqual({ 'text/plain': { schema: { type: 'string' } } });
    expect(Object.keys(file!.responses['413']!.content!)).toEqual(['application/json']);
    expect(file?.parameters.map((parameter) => `${parameter.in}:${parameter.name}:${parameter.required}`)).toEqual(['path:id:true', 'query:file_path:true']);
  });

  it('serializes to JSON', () => {
    expect(() => JSON.stringify(document)).not.toThrow();
  });
});

describe('OpenAPI components of schemas used both ways', () => {
  const withDefault = nameSchema('TestWidget', z.object({ size: z.number().default(1) }));
  const route = defineRoute({
    method: 'POST',
    path: '/widgets',
    operationId: 'makeWidget',
    summary: 'A widget',
    tag: 'test',
    body: { schema: withDefault, required: true },
    responses: { 201: { description: 'The widget', schema: withDefault } },
    async handle({ body }) {
      return { status: 201, body };
    },
  });

  it('gives the input form its own name when it differs from the output', () => {
    const document = buildOpenApiDocument([route]) as unknown as Document;
    const operation = document.paths['/widgets']?.post;
    expect(operation?.requestBody?.content['application/json']?.schema).toEqual({ $ref: `${COMPONENTS}TestWidgetInput` });
    expect(operation?.responses['201']?.content?.['application/json']?.schema).toEqual({ $ref: `${COMPONENTS}TestWidget` });
    expect(document.components.schemas.TestWidget).toMatchObject({ required: ['size'] });
    expect(document.components.schemas.TestWidgetInput).not.toHaveProperty('required');
  });

  it('refuses two schemas under one name', () => {
    expect(() => nameSchema('TestWidget', z.object({}))).toThrow(/already given/);
    expect(() => nameSchema('not a name', z.object({}))).toThrow(/PascalCase/);
  });
});
