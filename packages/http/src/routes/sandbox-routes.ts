import { cursorQuerySchema, pageSchema, sandboxSchema, sandboxSpecSchema, startSandboxInputSchema, successSchema } from '@agent-platform/core';
import { z } from 'zod';
import { defineRoute } from '../routing/define-route.js';
import { nameSchema } from '../openapi/schema-names.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const TAG = 'sandboxes';
const unavailable = errorDoc('No sandbox runtime is configured, or the sandbox did not start');
const MAX_BATCH = 100;
const done = { description: 'Done', schema: successSchema } as const;
const sandboxSpecPageSchema = nameSchema('SandboxSpecPage', pageSchema(sandboxSpecSchema));
const sandboxPageSchema = nameSchema('SandboxPage', pageSchema(sandboxSchema));

export const sandboxRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: '/api/v1/sandbox-specs/search',
    operationId: 'searchSandboxSpecs',
    summary: 'The sandbox specs sandboxes can be started from; the first is the default',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of specs', schema: sandboxSpecPageSchema }, 401: unauthorized, 422: invalid, 503: unavailable },
    async handle({ platform, query }) {
      return { status: 200, body: await platform.sandboxes.specs(query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: '/api/v1/sandboxes/search',
    operationId: 'searchSandboxes',
    summary: 'The caller’s sandboxes, newest first',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of sandboxes', schema: sandboxPageSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.sandboxes.search(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: '/api/v1/sandboxes',
    operationId: 'batchGetSandboxes',
    summary: 'The caller’s sandboxes by id (`id=` repeated); null for an unknown one',
    tag: TAG,
    query: z.object({ id: z.array(z.string()).max(MAX_BATCH, `at most ${MAX_BATCH} ids`).default([]) }),
    responses: { 200: { description: 'One entry per id, in order', schema: z.array(sandboxSchema.nullable()) }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.sandboxes.batchGet(principal, query.id) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: '/api/v1/sandboxes',
    operationId: 'startSandbox',
    summary: 'Start a sandbox (`sandbox_spec_id` in the query or the body; the default spec otherwise)',
    tag: TAG,
    query: z.object({ sandbox_spec_id: z.string().optional().describe('The spec to start from; wins over the body’s') }),
    body: { schema: startSandboxInputSchema, required: false },
    responses: { 200: { description: 'The sandbox', schema: sandboxSchema }, 401: unauthorized, ...bodyErrors, 503: unavailable },
    async handle({ platform, principal, query, body }) {
      return { status: 200, body: await platform.sandboxes.start(principal, query.sandbox_spec_id ?? body?.sandbox_spec_id) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: '/api/v1/sandboxes/{id}/pause',
    operationId: 'pauseSandbox',
    summary: 'Pause a sandbox (freezes everything in it)',
    tag: TAG,
    body: { schema: z.object({}), required: false },
    responses: { 200: done, 401: unauthorized, 404: notFoundDoc, ...bodyErrors, 503: unavailable },
    async handle({ platform, principal, params }) {
      await platform.sandboxes.pause(principal, params.id);
      return { status: 200, body: { success: true } };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: '/api/v1/sandboxes/{id}/resume',
    operationId: 'resumeSandbox',
    summary: 'Resume a paused sandbox',
    tag: TAG,
    body: { schema: z.object({}), required: false },
    responses: { 200: done, 401: unauthorized, 404: notFoundDoc, ...bodyErrors, 503: unavailable },
    async handle({ platform, principal, params }) {
      await platform.sandboxes.resume(principal, params.id);
      return { status: 200, body: { success: true } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    role: 'member',
    path: '/api/v1/sandboxes/{id}',
    operationId: 'deleteSandbox',
    summary: 'Delete a sandbox and everything in it',
    tag: TAG,
    responses: { 200: done, 401: unauthorized, 404: notFoundDoc, 503: unavailable },
    async handle({ platform, principal, params }) {
      await platform.sandboxes.delete(principal, params.id);
      return { status: 200, body: { success: true } };
    },
  }),
] as const;
