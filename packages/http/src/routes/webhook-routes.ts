import {
  createdWebhookSchema,
  pageQuerySchema,
  rotatedWebhookSchema,
  webhookCreateInputSchema,
  webhookListSchema,
  webhookRotateInputSchema,
  webhookUpdateInputSchema,
  webhookViewSchema,
} from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const BASE = '/api/automation/v1/webhooks';
const TAG = 'webhooks';

export const webhookRoutes = [
  defineRoute({
    method: 'POST',
    role: 'admin',
    path: BASE,
    operationId: 'registerWebhook',
    summary: 'Register a custom webhook source',
    tag: TAG,
    body: { schema: webhookCreateInputSchema, required: true },
    responses: {
      201: { description: 'Registered; `webhook_secret` only when the service generated it', schema: createdWebhookSchema },
      401: unauthorized,
      409: errorDoc('The organization already has a webhook for this source'),
      ...bodyErrors,
    },
    async handle({ platform, principal, body }) {
      return { status: 201, body: await platform.webhooks.register(principal, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: BASE,
    operationId: 'listWebhooks',
    summary: 'The organization’s webhooks',
    tag: TAG,
    query: pageQuerySchema,
    responses: { 200: { description: 'A page of webhooks', schema: webhookListSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.webhooks.list(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/{id}`,
    operationId: 'getWebhook',
    summary: 'One webhook',
    tag: TAG,
    responses: { 200: { description: 'The webhook', schema: webhookViewSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.webhooks.get(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    role: 'admin',
    path: `${BASE}/{id}`,
    operationId: 'updateWebhook',
    summary: 'Update a webhook (its source cannot change)',
    tag: TAG,
    body: { schema: webhookUpdateInputSchema, required: true },
    responses: { 200: { description: 'The webhook', schema: webhookViewSchema }, 401: unauthorized, 404: notFoundDoc, ...bodyErrors },
    async handle({ platform, principal, params, body }) {
      return { status: 200, body: await platform.webhooks.update(principal, params.id, body) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    role: 'admin',
    path: `${BASE}/{id}`,
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook',
    tag: TAG,
    responses: { 204: { description: 'Deleted' }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      await platform.webhooks.delete(principal, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'admin',
    path: `${BASE}/{id}/rotate-secret`,
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret; the old one verifies for a grace period',
    tag: TAG,
    body: { schema: webhookRotateInputSchema, required: false },
    responses: {
      200: { description: 'The webhook with its new secret, shown only here', schema: rotatedWebhookSchema },
      401: unauthorized,
      404: notFoundDoc,
      ...bodyErrors,
    },
    async handle({ platform, principal, params, body }) {
      return { status: 200, body: await platform.webhooks.rotateSecret(principal, params.id, body) };
    },
  }),
] as const;
