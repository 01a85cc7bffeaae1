/**
 * OpenHands' `/api/options/*`: the values a settings form offers. `GET /api/options/agents` lists
 * the names the `agent` setting may take here (the built-in agents and those the host
 * registers), the default first; a save naming another is a 422 with the same list.
 * @module
 */
import { z } from 'zod';
import { defineRoute } from '../routing/define-route.js';
import { unauthorized } from './shared-responses.js';

export const optionsRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: '/api/options/agents',
    operationId: 'getAgentOptions',
    summary: 'The agent names the `agent` setting may take, the default first; empty when the host checks no names',
    tag: 'settings',
    responses: { 200: { description: 'The agent names', schema: z.array(z.string()) }, 401: unauthorized },
    async handle({ platform }) {
      return { status: 200, body: platform.settings.agentNames() };
    },
  }),
] as const;
