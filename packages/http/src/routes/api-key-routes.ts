import { apiKeyCreateInputSchema, apiKeyListSchema, createdApiKeySchema, currentApiKeySchema } from '@agent-platform/core';
import { readApiKey } from '../exchange/api-key-header.js';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, errorDoc, notFoundDoc, unauthorized } from './shared-responses.js';

export const apiKeyRoutes = [
  defineRoute({
    method: 'POST',
    // A key is its user's own and never stronger than the one making it: viewers manage theirs too.
    role: 'viewer',
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
    role: 'viewer',
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
    method: 'GET',
    role: 'viewer',
    path: '/api/keys/current',
    operationId: 'getCurrentApiKey',
    summary: 'The stored API key the request authenticated with (auth_type "api_key"), never the key itself',
    tag: 'api-keys',
    responses: {
      200: { description: 'The key', schema: currentApiKeySchema },
      401: unauthorized,
      404: errorDoc('The request was not authenticated with an API key stored by the platform'),
    },
    async handle({ platform, principal, headers }) {
      return { status: 200, body: await platform.apiKeys.current(principal, readApiKey(headers)) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    role: 'viewer',
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
