import { cursorQuerySchema, pageSchema, parseInput, sandboxSchema, sandboxSpecSchema, startSandboxInputSchema, successSchema, validationError } from '@agent-platform/core';
import { z } from 'zod';
import type { RouteDefinition } from '../types.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const TAG = 'sandboxes';
const unavailable = errorDoc('No sandbox runtime is configured, or the sandbox did not start');
const cursor = (query: URLSearchParams) => parseInput(cursorQuerySchema, Object.fromEntries(query), 'query');
const MAX_BATCH = 100;

export const sandboxRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/api/v1/sandbox-specs/search',
    operationId: 'searchSandboxSpecs',
    summary: 'The sandbox specs sandboxes can be started from; the first is the default',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of specs', schema: pageSchema(sandboxSpecSchema) }, 401: unauthorized, 422: invalid, 503: unavailable },
    async handle({ platform, query }) {
      return { status: 200, body: await platform.sandboxes.specs(cursor(query)) };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/sandboxes/search',
    operationId: 'searchSandboxes',
    summary: 'The caller’s sandboxes, newest first',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of sandboxes', schema: pageSchema(sandboxSchema) }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.sandboxes.search(principal, cursor(query)) };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/sandboxes',
    operationId: 'batchGetSandboxes',
    summary: 'The caller’s sandboxes by id (`id=` repeated); null for an unknown one',
    tag: TAG,
    query: z.object({ id: z.array(z.string()).max(MAX_BATCH) }),
    responses: { 200: { description: 'One entry per id, in order', schema: z.array(sandboxSchema.nullable()) }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      const ids = query.getAll('id');
      if (ids.length > MAX_BATCH) throw validationError(['query', 'id'], `at most ${MAX_BATCH} ids`);
      return { status: 200, body: await platform.sandboxes.batchGet(principal, ids) };
    },
  },
  {
    method: 'POST',
    path: '/api/v1/sandboxes',
    operationId: 'startSandbox',
    summary: 'Start a sandbox (`sandbox_spec_id` in the query or the body; the default spec otherwise)',
    tag: TAG,
    body: { schema: startSandboxInputSchema, required: false },
    responses: { 200: { description: 'The sandbox', schema: sandboxSchema }, 401: unauthorized, ...bodyErrors, 503: unavailable },
    async handle({ platform, principal, query, body }) {
      const parsed = parseInput(startSandboxInputSchema, body === undefined ? {} : body);
      return { status: 200, body: await platform.sandboxes.start(principal, query.get('sandbox_spec_id') ?? parsed.sandbox_spec_id) };
    },
  },
  ...(['pause', 'resume'] as const).map(
    (verb): RouteDefinition => ({
      method: 'POST',
      path: `/api/v1/sandboxes/{id}/${verb}`,
      operationId: `${verb}Sandbox`,
      summary: verb === 'pause' ? 'Pause a sandbox (freezes everything in it)' : 'Resume a paused sandbox',
      tag: TAG,
      body: { schema: z.object({}), required: false },
      responses: { 200: { description: 'Done', schema: successSchema }, 401: unauthorized, 404: notFoundDoc, ...bodyErrors, 503: unavailable },
      async handle({ platform, principal, params }) {
        await platform.sandboxes[verb](principal, params.id as string);
        return { status: 200, body: { success: true } };
      },
    }),
  ),
  {
    method: 'DELETE',
    path: '/api/v1/sandboxes/{id}',
    operationId: 'deleteSandbox',
    summary: 'Delete a sandbox and everything in it',
    tag: TAG,
    responses: { 200: { description: 'Done', schema: successSchema }, 401: unauthorized, 404: notFoundDoc, 503: unavailable },
    async handle({ platform, principal, params }) {
      await platform.sandboxes.delete(principal, params.id as string);
      return { status: 200, body: { success: true } };
    },
  },
];
