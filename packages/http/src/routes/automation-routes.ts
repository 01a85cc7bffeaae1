import {
  cursorQuerySchema,
  automationCreateInputSchema,
  automationDispatchInputSchema,
  automationListSchema,
  automationSchema,
  automationUpdateInputSchema,
  automationValidateInputSchema,
  automationValidationSchema,
  orgRunPageSchema,
  orgRunsQuerySchema,
  pageQuerySchema,
  runListSchema,
  runSchema,
} from '@agent-platform/core';
import { z } from 'zod';
import { defineRoute } from '../routing/define-route.js';
import { conversationEventPageSchema } from './conversation-routes.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const BASE = '/api/automation/v1';
const TAG = 'automations';

export const automationRoutes = [
  defineRoute({
    method: 'POST',
    role: 'member',
    path: BASE,
    operationId: 'createAutomation',
    summary: 'Create an event automation',
    tag: TAG,
    body: { schema: automationCreateInputSchema, required: true },
    responses: { 201: { description: 'The automation', schema: automationSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      return { status: 201, body: await platform.automations.create(principal, body) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: `${BASE}/validate`,
    operationId: 'validateAutomation',
    // The draft is validated as create validates it (422 with the same issues); its trigger is
    // evaluated as ingest evaluates it. Nothing is stored.
    summary: 'Check an automation draft, and whether it would fire for a sample payload or the source’s recent deliveries',
    tag: TAG,
    body: { schema: automationValidateInputSchema, required: true },
    responses: { 200: { description: 'The draft is valid; one result per payload', schema: automationValidationSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      return { status: 200, body: await platform.automations.validate(principal, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: BASE,
    operationId: 'listAutomations',
    summary: 'The organization’s automations, newest first',
    tag: TAG,
    query: pageQuerySchema,
    responses: { 200: { description: 'A page of automations', schema: automationListSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.automations.list(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/{id}`,
    operationId: 'getAutomation',
    summary: 'One automation',
    tag: TAG,
    responses: { 200: { description: 'The automation', schema: automationSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.automations.get(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    role: 'member',
    path: `${BASE}/{id}`,
    operationId: 'updateAutomation',
    summary: 'Update an automation (any subset of fields)',
    tag: TAG,
    body: { schema: automationUpdateInputSchema, required: true },
    responses: { 200: { description: 'The automation', schema: automationSchema }, 401: unauthorized, 404: notFoundDoc, ...bodyErrors },
    async handle({ platform, principal, params, body }) {
      return { status: 200, body: await platform.automations.update(principal, params.id, body) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    role: 'member',
    path: `${BASE}/{id}`,
    operationId: 'deleteAutomation',
    summary: 'Delete an automation',
    tag: TAG,
    responses: { 204: { description: 'Deleted' }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      await platform.automations.delete(principal, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: `${BASE}/{id}/dispatch`,
    operationId: 'dispatchAutomation',
    summary: 'Run an automation now (manual dispatch); an optional payload stands in for the event',
    tag: TAG,
    body: { schema: automationDispatchInputSchema, required: false },
    responses: {
      201: { description: 'The PENDING run', schema: runSchema },
      401: unauthorized,
      404: notFoundDoc,
      429: errorDoc('A budget of the org, the automation’s owner or the automation is spent; `Retry-After` says when it resets'),
      ...bodyErrors,
    },
    async handle({ platform, principal, params, body }) {
      return { status: 201, body: await platform.automations.dispatch(principal, params.id, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/{id}/runs`,
    operationId: 'listAutomationRuns',
    summary: 'An automation’s runs, newest first',
    tag: TAG,
    query: pageQuerySchema,
    responses: { 200: { description: 'A page of runs', schema: runListSchema }, 401: unauthorized, 404: notFoundDoc, 422: invalid },
    async handle({ platform, principal, params, query }) {
      return { status: 200, body: await platform.automations.listRuns(principal, params.id, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/runs`,
    operationId: 'listOrgRuns',
    summary: 'The org’s runs across its automations, newest first (filters: status, automation_id, since)',
    tag: TAG,
    query: orgRunsQuerySchema,
    responses: { 200: { description: 'A page of runs', schema: orgRunPageSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.automations.listOrgRuns(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/runs/{run_id}`,
    operationId: 'getRun',
    summary: 'One run, by id (poll it to follow a run to its end)',
    tag: TAG,
    responses: { 200: { description: 'The run', schema: runSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.automations.getRun(principal, params.run_id) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/runs/{run_id}/events`,
    operationId: 'listRunEvents',
    summary: 'A run’s events (its conversation’s, for anyone in the run’s org), oldest first, paged',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of events', schema: conversationEventPageSchema }, 401: unauthorized, 404: notFoundDoc, 422: invalid },
    async handle({ platform, principal, params, query }) {
      return { status: 200, body: await platform.automations.runEvents(principal, params.run_id, query) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: `${BASE}/runs/{run_id}/cancel`,
    operationId: 'cancelRun',
    summary: 'Cancel a run that has not finished',
    tag: TAG,
    body: { schema: z.strictObject({}), required: false },
    responses: {
      200: { description: 'The cancelled run', schema: runSchema },
      401: unauthorized,
      404: notFoundDoc,
      409: errorDoc('The run has already finished'),
      ...bodyErrors,
    },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.automations.cancelRun(principal, params.run_id) };
    },
  }),
] as const;
