import { budgetInputSchema, budgetListSchema, budgetViewSchema, usageQuerySchema, usageSchema } from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const BASE = '/api/automation/v1';
const TAG = 'budgets';

/** Spend caps (set by owners, seen by everyone in the org) and the usage report of what model calls cost. */
export const budgetRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/budgets`,
    operationId: 'listBudgets',
    summary: 'The org’s spend budgets, each with what it has spent in its current period',
    tag: TAG,
    responses: { 200: { description: 'The budgets, oldest first', schema: budgetListSchema }, 401: unauthorized },
    async handle({ platform, principal }) {
      return { status: 200, body: await platform.budgets.list(principal) };
    },
  }),
  defineRoute({
    method: 'PUT',
    role: 'owner',
    path: `${BASE}/budgets`,
    operationId: 'setBudget',
    summary: 'Cap the model spend of the org, a user or an automation per day or month (replaces the limit of the same scope, subject and period)',
    tag: TAG,
    body: { schema: budgetInputSchema, required: true },
    responses: { 200: { description: 'The budget as stored', schema: budgetViewSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      return { status: 200, body: await platform.budgets.put(principal, body) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    role: 'owner',
    path: `${BASE}/budgets/{id}`,
    operationId: 'deleteBudget',
    summary: 'Remove a budget',
    tag: TAG,
    responses: { 204: { description: 'Removed' }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      await platform.budgets.delete(principal, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/usage`,
    operationId: 'getUsage',
    summary: 'What the org’s model calls cost over a range of days (default the last 30), in total and by day, user, automation and model',
    tag: TAG,
    query: usageQuerySchema,
    responses: { 200: { description: 'The usage report', schema: usageSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.budgets.usage(principal, query) };
    },
  }),
] as const;
