/**
 * OpenHands' V1 settings (`/api/v1/settings`): the caller's settings with the nested
 * `agent_settings` / `conversation_settings` views, saved as a partial diff, and the JSON
 * Schemas of the diffs. The same settings as `/api/settings`.
 * @module
 */
import { messageResponseSchema, settingsSchemaDocumentSchema, v1SettingsSaveInputSchema, v1SettingsViewSchema } from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, unauthorized } from './shared-responses.js';

const TAG = 'settings';
const BASE = '/api/v1/settings';

export const openHandsSettingsRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: BASE,
    operationId: 'getV1Settings',
    summary: 'The caller’s settings, secrets masked, with OpenHands’ agent_settings and conversation_settings; the defaults before any are stored',
    tag: TAG,
    responses: { 200: { description: 'The settings', schema: v1SettingsViewSchema }, 401: unauthorized },
    async handle({ platform, principal }) {
      return { status: 200, body: await platform.settings.openHandsView(principal) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: BASE,
    operationId: 'saveV1Settings',
    summary: 'A partial update: agent_settings_diff, conversation_settings_diff and flat fields change only what they name',
    tag: TAG,
    body: { schema: v1SettingsSaveInputSchema, required: false },
    responses: { 200: { description: 'Settings stored', schema: messageResponseSchema }, 401: unauthorized, ...bodyErrors },
    // The body as sent, not as parsed: parsing fills in the flags' defaults, and a partial update
    // changes only the fields the caller named (the service tells them by the keys sent).
    async handle({ platform, principal, sentBody }) {
      await platform.settings.saveOpenHands(principal, sentBody);
      return { status: 200, body: { message: 'Settings stored' } };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/agent-schema`,
    operationId: 'getAgentSettingsSchema',
    summary: 'The JSON Schema of agent_settings_diff, with OpenHands’ model_name and sections',
    tag: TAG,
    responses: { 200: { description: 'The schema', schema: settingsSchemaDocumentSchema }, 401: unauthorized },
    async handle({ platform }) {
      return { status: 200, body: platform.settings.agentSettingsSchema() };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/conversation-schema`,
    operationId: 'getConversationSettingsSchema',
    summary: 'The JSON Schema of conversation_settings_diff, with OpenHands’ model_name and sections',
    tag: TAG,
    responses: { 200: { description: 'The schema', schema: settingsSchemaDocumentSchema }, 401: unauthorized },
    async handle({ platform }) {
      return { status: 200, body: platform.settings.conversationSettingsSchema() };
    },
  }),
] as const;
