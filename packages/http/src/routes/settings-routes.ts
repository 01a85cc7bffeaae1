import {
  messageResponseSchema,
  providerTokensInputSchema,
  settingsInputSchema,
  settingsViewSchema,
  unsetProviderTokensInputSchema,
} from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, notFoundDoc, unauthorized } from './shared-responses.js';

export const settingsRoutes = [
  defineRoute({
    method: 'POST',
    role: 'member',
    path: '/api/settings',
    operationId: 'storeSettings',
    credential: 'session',
    summary: 'Store the caller’s settings',
    tag: 'settings',
    body: { schema: settingsInputSchema, required: true },
    responses: { 200: { description: 'Settings stored', schema: messageResponseSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      await platform.settings.store(principal, body);
      return { status: 200, body: { message: 'Settings stored' } };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: '/api/settings',
    operationId: 'getSettings',
    credential: 'session',
    summary: 'The caller’s settings, secrets masked',
    tag: 'settings',
    responses: { 200: { description: 'The settings', schema: settingsViewSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal }) {
      return { status: 200, body: await platform.settings.get(principal) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: '/api/add-git-providers',
    operationId: 'storeProviderTokens',
    credential: 'session',
    summary: 'Store git-provider tokens',
    tag: 'settings',
    body: { schema: providerTokensInputSchema, required: true },
    responses: { 200: { description: 'Tokens stored', schema: messageResponseSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      await platform.gitProviders.store(principal, body);
      return { status: 200, body: { message: 'Git providers stored' } };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: '/api/unset-provider-tokens',
    operationId: 'unsetProviderTokens',
    credential: 'session',
    summary: 'Remove git-provider tokens (all, or the providers named)',
    tag: 'settings',
    body: { schema: unsetProviderTokensInputSchema, required: false },
    responses: { 200: { description: 'Tokens removed', schema: messageResponseSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      await platform.gitProviders.unset(principal, body);
      return { status: 200, body: { message: 'Unset Git provider tokens' } };
    },
  }),
] as const;
