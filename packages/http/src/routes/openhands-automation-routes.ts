/**
 * The OpenHands automation service's own paths: its health, and its create path
 * `POST /api/automation/v1/preset/prompt` (an alias of `POST /api/automation/v1`).
 * @module
 */
import { automationHealthSchema, automationSchema, promptAutomationInputSchema } from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, errorDoc, unauthorized } from './shared-responses.js';

export const openHandsAutomationRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: '/api/automation/health',
    operationId: 'automationHealth',
    summary: 'The automation service answers and its storage is reachable (no credentials needed)',
    tag: 'system',
    credential: 'none',
    responses: { 200: { description: 'Healthy', schema: automationHealthSchema }, 503: errorDoc('Storage unreachable') },
    async handle({ platform }) {
      return { status: 200, body: await platform.automations.health() };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: '/api/automation/v1/preset/prompt',
    operationId: 'createPromptAutomation',
    summary: 'Create an automation, OpenHands’ way: prompt → instructions, model → llm_model, timeout → timeout_seconds',
    tag: 'automations',
    body: { schema: promptAutomationInputSchema, required: true },
    responses: { 201: { description: 'The automation', schema: automationSchema }, 401: unauthorized, ...bodyErrors },
    async handle({ platform, principal, body }) {
      return { status: 201, body: await platform.automations.createFromPrompt(principal, body) };
    },
  }),
] as const;
