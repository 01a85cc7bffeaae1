/**
 * Type tests of `defineRoute` and `ApiRoutes` (checked by `tsc`; `expectTypeOf` does nothing at
 * run time), with the run-time shape of what `defineRoute` returns.
 */
import type { Automation, AutomationCreateInput, ConversationEvent, Page, Run, SettingsView, StartTask, WebhookView } from '@agent-platform/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineRoute, type ApiRoutes, type PathParams, type RouteKey } from './index.js';
import type { RouteDefinition } from './types.js';
import { allRoutes } from './handler.js';

describe('ApiRoutes', () => {
  it('is keyed by method and path', () => {
    expectTypeOf<'POST /api/automation/v1'>().toExtend<RouteKey>();
    expectTypeOf<'GET /api/automation/v1/runs/{run_id}'>().toExtend<RouteKey>();
    expectTypeOf<'GET /openapi.json'>().toExtend<RouteKey>();
    expectTypeOf<'GET /api/automation/v1/nope'>().not.toExtend<RouteKey>();
    // Every route the table serves is there (the OpenHands routes join once declared with defineRoute).
    const typed = allRoutes().filter((route) => 'credential' in route);
    expect(typed.length).toBeGreaterThan(50);
  });

  it('types a route with a required body', () => {
    type Create = ApiRoutes['POST /api/automation/v1'];
    expectTypeOf<Create['operationId']>().toEqualTypeOf<'createAutomation'>();
    expectTypeOf<Create['credential']>().toEqualTypeOf<'bearer'>();
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
