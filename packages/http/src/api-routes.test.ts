/**
 * Type tests of `defineRoute` and `ApiRoutes` (checked by `tsc`; `expectTypeOf` does nothing at
 * run time), with the run-time shape of what `defineRoute` returns.
 */
import type {
  AppConversation,
  AppConversationUpdateInput,
  Automation,
  AutomationCreateInput,
  AutomationHealth,
  ConversationEvent,
  CurrentApiKey,
  CustomSecretPage,
  Page,
  Run,
  SettingsView,
  StartTask,
  WebhookView,
} from '@agent-platform/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineRoute, type ApiRoutes, type ApiRoutesOf, type BinaryResponse, type PathParams, type RouteKey } from './index.js';
import type { RouteDefinition } from './exchange/types.js';
import { allRoutes } from './handler.js';

describe('ApiRoutes', () => {
  it('is keyed by method and path', () => {
    expectTypeOf<'POST /api/automation/v1'>().toExtend<RouteKey>();
    expectTypeOf<'GET /api/automation/v1/runs/{run_id}'>().toExtend<RouteKey>();
    expectTypeOf<'GET /openapi.json'>().toExtend<RouteKey>();
    expectTypeOf<'GET /api/automation/v1/nope'>().not.toExtend<RouteKey>();
    // Every route the table serves is declared with defineRoute, so every one is in the table.
    expect(allRoutes().filter((route) => !('credential' in route))).toEqual([]);
    expect(allRoutes().length).toBeGreaterThan(65);
  });

  it('types a route with a required body', () => {
    type Create = ApiRoutes['POST /api/automation/v1'];
    expectTypeOf<Create['operationId']>().toEqualTypeOf<'createAutomation'>();
    expectTypeOf<Create['credential']>().toEqualTypeOf<'bearer'>();
    // biome-ignore lint/complexity/noBannedTypes: the route table types the params of a route without path parameters as exactly `{}`, which is what this asserts
    expectTypeOf<Create['params']>().toEqualTypeOf<{}>();
    expectTypeOf<Create['query']>().toEqualTypeOf<undefined>();
    expectTypeOf<Create['body']>().toEqualTypeOf<AutomationCreateInput>();
    expectTypeOf<Create['bodyRequired']>().toEqualTypeOf<true>();
    expectTypeOf<Create['response']>().toEqualTypeOf<Automation>();
  });

  it('types path parameters, queries and optional bodies', () => {
    type GetRun = ApiRoutes['GET /api/automation/v1/runs/{run_id}'];
    expectTypeOf<GetRun['operationId']>().toEqualTypeOf<'getRun'>();
    expectTypeOf<GetRun['params']>().toEqualTypeOf<{ run_id: string }>();
    expectTypeOf<GetRun['response']>().toEqualTypeOf<Run>();

    type Rotate = ApiRoutes['POST /api/automation/v1/webhooks/{id}/rotate-secret'];
    expectTypeOf<Rotate['params']>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<Rotate['bodyRequired']>().toEqualTypeOf<false>();
    expectTypeOf<Rotate['response']>().toExtend<WebhookView & { webhook_secret: string }>();

    type Replay = ApiRoutes['POST /api/automation/v1/subscriptions/{subscription_id}/messages/{message_id}/replay'];
    expectTypeOf<Replay['params']>().toEqualTypeOf<{ subscription_id: string; message_id: string }>();
    expectTypeOf<Replay['bodyRequired']>().toEqualTypeOf<false>();
    expectTypeOf<ApiRoutes['POST /api/automation/v1/subscriptions']['response']>().toExtend<{ secret: string }>();

    type Conversations = ApiRoutes['GET /api/v1/app-conversations'];
    expectTypeOf<Conversations['query']>().toExtend<{ ids?: string[] | undefined; page_id?: string | undefined } | undefined>();

    type Tasks = ApiRoutes['GET /api/v1/app-conversations/start-tasks'];
    expectTypeOf<Tasks['response']>().toEqualTypeOf<(StartTask | null)[]>();
  });

  it('says which credential a client sends', () => {
    expectTypeOf<ApiRoutes['GET /api/settings']['credential']>().toEqualTypeOf<'session'>();
    expectTypeOf<ApiRoutes['GET /api/settings']['response']>().toEqualTypeOf<SettingsView>();
    expectTypeOf<ApiRoutes['POST /api/unset-provider-tokens']['credential']>().toEqualTypeOf<'session'>();
    expectTypeOf<ApiRoutes['GET /health']['credential']>().toEqualTypeOf<'none'>();
    expectTypeOf<ApiRoutes['POST /api/automation/v1/events/{org_id}/{source}']['credential']>().toEqualTypeOf<'none'>();
    expectTypeOf<ApiRoutes['POST /api/automation/v1/events/{org_id}/{source}']['params']>().toEqualTypeOf<{ org_id: string; source: string }>();
  });

  it('answers void for 204 routes, and marks streams', () => {
    expectTypeOf<ApiRoutes['DELETE /api/automation/v1/{id}']['response']>().toEqualTypeOf<void>();
    type Stream = ApiRoutes['GET /api/v1/app-conversations/{id}/events/stream'];
    expectTypeOf<Stream['streamed']>().toEqualTypeOf<true>();
    expectTypeOf<Stream['response']>().toEqualTypeOf<ConversationEvent>();
    expectTypeOf<ApiRoutes['GET /api/v1/app-conversations/{id}/events']['response']>().toEqualTypeOf<Page<ConversationEvent>>();
    expectTypeOf<ApiRoutes['GET /api/v1/app-conversations/{id}/events']>().not.toHaveProperty('streamed');
  });
});

describe('ApiRoutes of the OpenHands app-server endpoints', () => {
  it('types them like every route', () => {
    expectTypeOf<ApiRoutes['GET /api/keys/current']['response']>().toEqualTypeOf<CurrentApiKey>();
    expectTypeOf<ApiRoutes['GET /api/automation/health']['credential']>().toEqualTypeOf<'none'>();
    expectTypeOf<ApiRoutes['GET /api/automation/health']['response']>().toEqualTypeOf<AutomationHealth>();
    expectTypeOf<ApiRoutes['POST /api/automation/v1/preset/prompt']['response']>().toEqualTypeOf<Automation>();
    expectTypeOf<ApiRoutes['GET /api/v1/secrets/search']['query']>().toEqualTypeOf<{
      name__contains?: string | undefined;
      page_id?: string | undefined;
      limit?: unknown;
    }>();
    expectTypeOf<ApiRoutes['GET /api/v1/secrets/search']['response']>().toEqualTypeOf<CustomSecretPage>();
    expectTypeOf<ApiRoutes['PUT /api/v1/secrets/{name}']['params']>().toEqualTypeOf<{ name: string }>();
    type Rename = ApiRoutes['PATCH /api/v1/app-conversations/{id}'];
    expectTypeOf<Rename['body']>().toEqualTypeOf<AppConversationUpdateInput>();
    expectTypeOf<Rename['bodyRequired']>().toEqualTypeOf<true>();
    expectTypeOf<Rename['response']>().toEqualTypeOf<AppConversation>();
    expectTypeOf<Rename['responseType']>().toEqualTypeOf<'json'>();
    expectTypeOf<ApiRoutes['POST /api/v1/settings']['bodyRequired']>().toEqualTypeOf<false>();
  });

  it('says how to read a text or binary answer: responseType, and a string or a Blob', () => {
    type Download = ApiRoutes['GET /api/v1/app-conversations/{id}/download'];
    expectTypeOf<Download['responseType']>().toEqualTypeOf<'binary'>();
    expectTypeOf<Download['response']>().toEqualTypeOf<Blob>();
    expectTypeOf<Download['params']>().toEqualTypeOf<{ id: string }>();
    type File = ApiRoutes['GET /api/v1/app-conversations/{id}/file'];
    expectTypeOf<File['responseType']>().toEqualTypeOf<'text'>();
    expectTypeOf<File['response']>().toEqualTypeOf<string>();
    expectTypeOf<File['query']>().toEqualTypeOf<{ file_path: string }>();
    // JSON elsewhere, streams included (each event is JSON).
    expectTypeOf<ApiRoutes['GET /api/v1/app-conversations/{id}/events/stream']['responseType']>().toEqualTypeOf<'json'>();
    expectTypeOf<ApiRoutes['DELETE /api/automation/v1/{id}']['responseType']>().toEqualTypeOf<'json'>();
  });
});

describe('defineRoute', () => {
  it('types the context from the declaration, with no annotations', () => {
    const route = defineRoute({
      method: 'POST',
      path: '/things/{id}/parts/{part_id}',
      operationId: 'addPart',
      summary: 'Add a part',
      tag: 'test',
      credential: 'session',
      query: z.object({ ids: z.array(z.string()).optional(), limit: z.coerce.number().default(5) }),
      body: { schema: z.object({ name: z.string() }), required: false },
      responses: { 201: { description: 'The part', schema: z.object({ id: z.string(), name: z.string() }) }, 409: { description: 'Taken' } },
      async handle({ params, query, body }) {
        expectTypeOf(params).toEqualTypeOf<{ id: string; part_id: string }>();
        expectTypeOf(query).toEqualTypeOf<{ ids?: string[] | undefined; limit: number }>();
        expectTypeOf(body).toEqualTypeOf<{ name: string } | undefined>();
        if (!body) return { status: 409, body: { detail: 'no name' } };
        return { status: 201, body: { id: params.part_id, name: body.name } };
      },
    });
    expectTypeOf(route.method).toEqualTypeOf<'POST'>();
    expectTypeOf(route.operationId).toEqualTypeOf<'addPart'>();
    expectTypeOf(route.credential).toEqualTypeOf<'session'>();
    expect(route.credential).toBe('session');
    expect(route.auth).toBe(true);
  });

  it('checks what handle answers against the success schema', () => {
    defineRoute({
      method: 'GET',
      path: '/things',
      operationId: 'listThings',
      summary: 'Things',
      tag: 'test',
      responses: { 200: { description: 'Things', schema: z.object({ names: z.array(z.string()) }) } },
      // @ts-expect-error `names` must be strings
      async handle() {
        return { status: 200, body: { names: [1] } };
      },
    });
    defineRoute({
      method: 'GET',
      path: '/things',
      operationId: 'listThings',
      summary: 'Things',
      tag: 'test',
      responses: { 200: { description: 'Things', schema: z.object({ names: z.array(z.string()) }) } },
      // @ts-expect-error 201 is not a documented status
      async handle() {
        return { status: 201, body: { names: [] } };
      },
    });
  });

  it('types text and binary answers from their content type', () => {
    const text = defineRoute({
      method: 'GET',
      path: '/notes/{id}',
      operationId: 'readNote',
      summary: 'A note',
      tag: 'test',
      responses: { 200: { description: 'Its text', contentType: 'text/markdown' }, 404: { description: 'None' } },
      async handle({ params }) {
        return { status: 200, body: `# ${params.id}`, headers: { 'content-language': 'en' } };
      },
    });
    expectTypeOf<ApiRoutesOf<typeof text>['GET /notes/{id}']['response']>().toEqualTypeOf<string>();
    expectTypeOf<ApiRoutesOf<typeof text>['GET /notes/{id}']['responseType']>().toEqualTypeOf<'text'>();
    const bytes = defineRoute({
      method: 'GET',
      path: '/pictures/{id}',
      operationId: 'getPicture',
      summary: 'A picture',
      tag: 'test',
      responses: { 200: { description: 'The PNG', contentType: 'image/png' } },
      async handle() {
        return { status: 200, body: new Uint8Array([137, 80, 78, 71]) };
      },
    });
    expectTypeOf<ApiRoutesOf<typeof bytes>['GET /pictures/{id}']['response']>().toEqualTypeOf<BinaryResponse>();
    expectTypeOf<ApiRoutesOf<typeof bytes>['GET /pictures/{id}']['responseType']>().toEqualTypeOf<'binary'>();
    // A `+json` type is JSON.
    const problem = defineRoute({
      method: 'GET',
      path: '/problem',
      operationId: 'problem',
      summary: 'JSON by another name',
      tag: 'test',
      responses: { 200: { description: 'JSON', contentType: 'application/problem+json', schema: z.object({ title: z.string() }) } },
      async handle() {
        return { status: 200, body: { title: 't' } };
      },
    });
    expectTypeOf<ApiRoutesOf<typeof problem>['GET /problem']['response']>().toEqualTypeOf<{ title: string }>();
    expectTypeOf<ApiRoutesOf<typeof problem>['GET /problem']['responseType']>().toEqualTypeOf<'json'>();
    expect([text.responses[200].contentType, bytes.responses[200].contentType]).toEqual(['text/markdown', 'image/png']);
  });

  it('refuses a body of the wrong kind for a text or binary answer, and headers on JSON', () => {
    defineRoute({
      method: 'GET',
      path: '/notes',
      operationId: 'readNotes',
      summary: 'Notes',
      tag: 'test',
      responses: { 200: { description: 'Text', contentType: 'text/plain' } },
      // @ts-expect-error a text answer is a string, not an object
      async handle() {
        return { status: 200, body: { text: 'no' } };
      },
    });
    defineRoute({
      method: 'GET',
      path: '/archive',
      operationId: 'getArchive',
      summary: 'A zip',
      tag: 'test',
      responses: { 200: { description: 'Bytes', contentType: 'application/zip' } },
      // @ts-expect-error a binary answer is a Uint8Array, not a string
      async handle() {
        return { status: 200, body: 'PK' };
      },
    });
    defineRoute({
      method: 'GET',
      path: '/things',
      operationId: 'listThings',
      summary: 'Things',
      tag: 'test',
      responses: { 200: { description: 'Things', schema: z.object({ names: z.array(z.string()) }) } },
      // @ts-expect-error headers go with text and binary answers only
      async handle() {
        return { status: 200, body: { names: [] }, headers: { 'x-extra': '1' } };
      },
    });
  });

  it('defaults the credential to bearer, and params from the path or a params schema', () => {
    const route = defineRoute({
      method: 'GET',
      path: '/things/{id}',
      operationId: 'getThing',
      summary: 'A thing',
      tag: 'test',
      params: z.object({ id: z.string().startsWith('thing_') }),
      responses: { 204: { description: 'Here' } },
      async handle({ params, query, body }) {
        expectTypeOf(params).toEqualTypeOf<{ id: string }>();
        expectTypeOf(query).toEqualTypeOf<Record<never, never>>();
        expectTypeOf(body).toEqualTypeOf<undefined>();
        return { status: 204 };
      },
    });
    expectTypeOf(route.credential).toEqualTypeOf<'bearer'>();
    expect(route.credential).toBe('bearer');
    expectTypeOf<PathParams<'/a/{id}/runs/{run_id}'>>().toEqualTypeOf<{ id: string; run_id: string }>();
  });

  it('leaves untyped route definitions out of the typed table, and serves them still', () => {
    const untyped: RouteDefinition[] = [];
    expectTypeOf(allRoutes).returns.toExtend<(RouteDefinition | (typeof allRoutes extends () => (infer R)[] ? R : never))[]>();
    expect(untyped).toEqual([]);
  });
});
