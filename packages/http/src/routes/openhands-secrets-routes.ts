/**
 * OpenHands' custom secrets (`/api/v1/secrets`): the caller's `secrets_store.custom_secrets`
 * one by one — listed by name, created, renamed or re-described, deleted. Values are never
 * returned; they reach the agent's commands as environment variables.
 * @module
 */
import {
  customSecretCreateInputSchema,
  customSecretPageSchema,
  customSecretSearchQuerySchema,
  customSecretUpdateInputSchema,
  messageResponseSchema,
} from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const TAG = 'secrets';
const BASE = '/api/v1/secrets';
const taken = errorDoc('A secret of that name exists');

export const openHandsSecretRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/search`,
    operationId: 'searchSecrets',
    summary: 'The caller’s custom secrets by name (names and descriptions, never values), paged',
    tag: TAG,
    query: customSecretSearchQuerySchema,
    responses: { 200: { description: 'A page of secrets', schema: customSecretPageSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.secrets.search(principal, query) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: BASE,
    operationId: 'createSecret',
    summary: 'Store a custom secret (its value is never shown again)',
    tag: TAG,
    body: { schema: customSecretCreateInputSchema, required: true },
    responses: { 201: { description: 'Created', schema: messageResponseSchema }, 401: unauthorized, 409: taken, ...bodyErrors },
    async handle({ platform, principal, body }) {
      await platform.secrets.create(principal, body);
      return { status: 201, body: { message: 'Secret created successfully' } };
    },
  }),
  defineRoute({
    method: 'PUT',
    role: 'member',
    path: `${BASE}/{name}`,
    operationId: 'updateSecret',
    summary: 'Rename a custom secret and/or set its description; its value is kept',
    tag: TAG,
    body: { schema: customSecretUpdateInputSchema, required: true },
    responses: { 200: { description: 'Updated', schema: messageResponseSchema }, 401: unauthorized, 404: notFoundDoc, 409: taken, ...bodyErrors },
    async handle({ platform, principal, params, body }) {
      await platform.secrets.update(principal, params.name, body);
      return { status: 200, body: { message: 'Secret updated successfully' } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    role: 'member',
    path: `${BASE}/{name}`,
    operationId: 'deleteSecret',
    summary: 'Delete a custom secret',
    tag: TAG,
    responses: { 200: { description: 'Deleted', schema: messageResponseSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      await platform.secrets.delete(principal, params.name);
      return { status: 200, body: { message: 'Secret deleted successfully' } };
    },
  }),
] as const;
