import { overviewQuerySchema, overviewSchema } from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { invalid, unauthorized } from './shared-responses.js';

const BASE = '/api/automation/v1';

/** The console's overview: the org's runs over a period, aggregated by the storage. Spend by day is `GET /usage`. */
export const overviewRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/overview`,
    operationId: 'getOverview',
    summary:
      'The org’s runs created in a period (default the last 7 days): counts by status per hour or day, success rate, p50/p95 duration, the queue now and the automations failing most',
    tag: 'automations',
    query: overviewQuerySchema,
    responses: { 200: { description: 'The overview', schema: overviewSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.overview.get(principal, query) };
    },
  }),
] as const;
