import {
  messageResponseSchema,
  providerTokensInputSchema,
  settingsInputSchema,
  settingsViewSchema,
  unsetProviderTokensInputSchema,
} from '@agent-platform/core';
import type { RouteDefinition } from '../types.js';
import { bodyErrors, notFoundDoc, unauthorized } from './shared-responses.js';

export const settingsRoutes: RouteDefinition[] = [
  {
    method: 'POST',
    path: '/api/settings',
    operationId: 'storeSettings',
    summary: 'Store the caller’s settings',
    tag: 'settings',
    body: { schema: settingsInputSchema, required: true },
    responses: { 200: { description: 'Settings stored', schema: messageResponseSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      await platform.settings.store(principal, body);
      return { status: 200, body: { message: 'Settings stored' } };
    },
  },
  {
    method: 'GET',
    path: '/api/settings',
    operationId: 'getSettings',
    summary: 'The caller’s settings, secrets masked',
    tag: 'settings',
    responses: { 200: { description: 'The settings', schema: settingsViewSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal }) {
      return { status: 200, body: await platform.settings.get(principal) };
    },
  },
  {
    method: 'POST',
    path: '/api/add-git-providers',
    operationId: 'storeProviderTokens',
    summary: 'Store git-provider tokens',
    tag: 'settings',
    body: { schema: providerTokensInputSchema, required: true },
    responses: { 200: { description: 'Tokens stored', schema: messageResponseSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      await platform.gitProviders.store(principal, body);
      return { status: 200, body: { message: 'Git providers stored' } };
    },
  },
  {
    method: 'POST',
    path: '/api/unset-provider-tokens',
    operationId: 'unsetProviderTokens',
    summary: 'Remove git-provider tokens (all, or the providers named)',
    tag: 'settings',
    body: { schema: unsetProviderTokensInputSchema, required: false },
    responses: { 200: { description: 'Tokens removed', schema: messageResponseSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      await platform.gitProviders.unset(principal, body);
      return { status: 200, body: { message: 'Unset Git provider tokens' } };
    },
  },
];
