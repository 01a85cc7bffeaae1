/**
 * The OpenHands app-server endpoints the platform serves beyond its own API, so the
 * published `@openhands/typescript-client` `CloudClient` works against it: V1 settings, custom
 * secrets, conversation rename / delete / download / file, the automation service's health and
 * its prompt preset. (`GET /api/keys/current` is with the other key routes.)
 * @module
 */
import { openHandsAutomationRoutes } from './openhands-automation-routes.js';
import { openHandsConversationRoutes } from './openhands-conversation-routes.js';
import { openHandsSecretRoutes } from './openhands-secrets-routes.js';
import { openHandsSettingsRoutes } from './openhands-settings-routes.js';

export const openHandsRoutes = [...openHandsSettingsRoutes, ...openHandsSecretRoutes, ...openHandsConversationRoutes, ...openHandsAutomationRoutes] as const;
