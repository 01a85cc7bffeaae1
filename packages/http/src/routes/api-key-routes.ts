import { apiKeyCreateInputSchema, apiKeyListSchema, createdApiKeySchema } from '@agent-platform/core';
import { defineRoute } from '../define-route.js';
import { bodyErrors, notFoundDoc, unauthorized } from './shared-responses.js';

export const apiKeyRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/keys',
    operationId: 'createApiKey',
    summary: 'Create an API key (the key is shown only in this answer)',
    tag: 'api-keys',
    body: { schema: apiKeyCreateInputSchema, required: false },
    responses: { 201: { description: 'The new key', schema: createdApiKeySchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      return { status: 201, body: await platform.apiKeys.create(principal, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/keys',
    operationId: 'listApiKeys',
    summary: 'The caller’s API keys (never the keys themselves)',
    tag: 'api-keys',
    responses: { 200: { description: 'The keys', schema: apiKeyListSchema }, 401: unauthorized },
    async handle({ platform, principal }) {
      return { status: 200, body: await platform.apiKeys.list(principal) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/keys/{id}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    tag: 'api-keys',
    responses: { 204: { description: 'Revoked' }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      await platform.apiKeys.revoke(principal, params.id);
      return { status: 204 };
    },
  }),
] as const;
