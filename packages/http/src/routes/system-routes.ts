import { serviceStatusSchema as statusSchema } from '@agent-platform/core';
import type { RouteDefinition } from '../types.js';
import { errorDoc } from './shared-responses.js';

/** Liveness and readiness: no credentials needed. `/openapi.json` is served by the handler itself. */
export const systemRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/health',
    operationId: 'health',
    summary: 'Liveness: the process answers',
    tag: 'system',
    auth: false,
    responses: { 200: { description: 'Alive', schema: statusSchema } },
    async handle() {
      return { status: 200, body: { status: 'ok' } };
    },
  },
  {
    method: 'GET',
    path: '/ready',
    operationId: 'ready',
    summary: 'Readiness: storage is reachable',
    tag: 'system',
    auth: false,
    responses: { 200: { description: 'Ready', schema: statusSchema }, 503: errorDoc('Storage unreachable') },
    async handle({ platform }) {
      try {
        await platform.ready();
      } catch {
        return { status: 503, body: { detail: 'Storage is not reachable' } };
      }
      return { status: 200, body: { status: 'ready' } };
    },
  },
];
