import { serviceStatusSchema as statusSchema, type AgentPlatform } from '@agent-platform/core';
import { z } from 'zod';
import { defineRoute } from '../routing/define-route.js';
import { nameSchema } from '../openapi/schema-names.js';

const readinessCheckSchema = nameSchema(
  'ReadinessCheck',
  z.object({
    status: z.enum(['ok', 'failed', 'skipped']).describe('`skipped`: not applicable here (no runtime, no schema), or not checkable (the storage is down)'),
    reason: z.string().optional().describe('Why it failed or was skipped, in a few words'),
  }),
);

const readinessChecksSchema = z.object({
  storage: readinessCheckSchema.describe('The storage answers'),
  migrations: readinessCheckSchema.describe('Every migration this version knows is applied'),
  runtime: readinessCheckSchema.describe('The sandbox runtime answers (Docker: its engine’s `/_ping`)'),
});

/** `/health/ready` (and `/ready`) when ready. */
export const readinessSchema = nameSchema('Readiness', z.object({ status: z.literal('ready'), checks: readinessChecksSchema }));

/** `/health/ready` (and `/ready`) when not: an error body (`detail`) with the checks. */
export const notReadySchema = nameSchema(
  'NotReady',
  z.object({
    detail: z.string(),
    status: z.enum(['not_ready', 'stopping']).describe('`stopping`: the process is shutting down (its checks may still pass)'),
    checks: readinessChecksSchema,
  }),
);

const live = {
  summary: 'Liveness: the process answers (also while it shuts down)',
  tag: 'system',
  credential: 'none',
  responses: { 200: { description: 'Alive', schema: statusSchema } },
  async handle() {
    return { status: 200 as const, body: { status: 'ok' } };
  },
} as const;

const ready = {
  summary:
    'Readiness: the storage is reachable, its migrations applied, the sandbox runtime reachable, and the process is not shutting down. 503 names the check that failed',
  tag: 'system',
  credential: 'none',
  responses: { 200: { description: 'Ready', schema: readinessSchema }, 503: { description: 'Not ready, or shutting down', schema: notReadySchema } },
  async handle({ platform }: { platform: AgentPlatform }) {
    const { ready, stopping, checks } = await platform.readiness();
    if (ready) return { status: 200 as const, body: { status: 'ready' as const, checks } };
    const failed = Object.entries(checks).flatMap(([name, check]) => (check.status === 'failed' ? [`${name}: ${check.reason ?? 'failed'}`] : []));
    const detail = stopping ? 'The server is shutting down' : `Not ready: ${failed.join('; ')}`;
    return { status: 503 as const, body: { detail, status: stopping ? ('stopping' as const) : ('not_ready' as const), checks } };
  },
} as const;

/**
 * Liveness and readiness, as orchestrators probe them (`/health/live`, `/health/ready`), and
 * their first names (`/health`, `/ready`), which answer the same. No credentials needed.
 */
export const systemRoutes = [
  defineRoute({ method: 'GET', path: '/health/live', operationId: 'live', ...live }),
  defineRoute({ method: 'GET', path: '/health/ready', operationId: 'readiness', ...ready }),
  defineRoute({ method: 'GET', path: '/health', operationId: 'health', ...live, summary: `${live.summary}; the same as \`/health/live\`` }),
  defineRoute({ method: 'GET', path: '/ready', operationId: 'ready', ...ready, summary: `${ready.summary}; the same as \`/health/ready\`` }),
] as const;

/** The OpenAPI document, as an object (its schema is OpenAPI's own, not repeated here). */
export const openApiDocumentSchema = nameSchema('OpenApiDocument', z.record(z.string(), z.unknown()));

/**
 * `/openapi.json`. Its `handle` is a stand-in: the handler serves the route with one that answers
 * the document it built from its own route table.
 */
export const openApiRoute = defineRoute({
  method: 'GET',
  role: 'viewer',
  path: '/openapi.json',
  operationId: 'openapi',
  summary: 'This document',
  tag: 'system',
  credential: 'none',
  responses: { 200: { description: 'The OpenAPI 3.1 document', schema: openApiDocumentSchema } },
  async handle() {
    return { status: 200, body: {} };
  },
});
