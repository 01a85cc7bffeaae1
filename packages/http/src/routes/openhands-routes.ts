/**
 * The OpenHands app-server endpoints the platform serves beyond its own API (DESIGN §14), so the
 * published `@openhands/typescript-client` `CloudClient` works against it: the current API key,
 * V1 settings, custom secrets, conversation rename / delete / download / file, the automation
 * service's health and its prompt preset.
 * @module
 */
import { currentApiKeySchema } from '@agent-platform/core';
import { defineRoute } from '../define-route.js';
import type { HeaderValue } from '../types.js';
import { openHandsAutomationRoutes } from './openhands-automation-routes.js';
import { openHandsConversationRoutes } from './openhands-conversation-routes.js';
import { openHandsSecretRoutes } from './openhands-secrets-routes.js';
import { openHandsSettingsRoutes } from './openhands-settings-routes.js';
import { errorDoc, unauthorized } from './shared-responses.js';

const listOf = (value: HeaderValue): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/**
 * The API key the request presented. The handler has already refused a request naming two
 * different keys, so the first one found is the one it authenticated with. Read here rather than
 * with the handler's `readApiKey`: importing `handler.ts` (which imports the route table) from a
 * route file would be an import cycle.
 */
function presentedKey(headers: Record<string, HeaderValue>): string | undefined {
  for (const value of listOf(headers['x-session-api-key'])) {
    const key = value.split(',').map((part) => part.trim()).find(Boolean);
    if (key) return key;
  }
  for (const value of listOf(headers.authorization)) {
    const bearer = /^\s*Bearer\s+([^\s,]+)/i.exec(value)?.[1];
    if (bearer) return bearer;
  }
  return undefined;
}

export const openHandsRoutes = [
  defineRoute({
    method: 'GET',
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
      return { status: 200, body: await platform.apiKeys.current(principal, presentedKey(headers)) };
    },
  }),
  ...openHandsSettingsRoutes,
  ...openHandsSecretRoutes,
  ...openHandsConversationRoutes,
  ...openHandsAutomationRoutes,
] as const;
