/**
 * The OpenHands agent-server subset at the platform's own base URL, so that an
 * OpenHands client pointed at `agent_server_url` / `conversation_url` can follow and drive a
 * conversation: read it and its events, send follow-ups, run, pause, answer a confirmation, and
 * read the final response.
 * @module
 */
import { appConversationSchema, confirmationResponseSchema, cursorQuerySchema, sendMessageInputSchema, successSchema } from '@agent-platform/core';
import { z } from 'zod';
import { defineRoute } from '../routing/define-route.js';
import { nameSchema } from '../openapi/schema-names.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const TAG = 'agent-server';
const BASE = '/api/conversations/{id}';
const conflict = errorDoc('The conversation is not in a state that allows it');
const done = { description: 'Done', schema: successSchema };
const agentServerEventSchema = nameSchema('AgentServerEvent', z.looseObject({ id: z.string(), timestamp: z.string(), source: z.string(), kind: z.string() }));
const agentServerEventPageSchema = nameSchema(
  'AgentServerEventPage',
  z.object({ items: z.array(agentServerEventSchema), next_page_id: z.string().nullable() }),
);

export const agentServerRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: BASE,
    operationId: 'getAgentServerConversation',
    summary: 'The conversation (its execution_status, metrics, sandbox)',
    tag: TAG,
    conversationKey: true,
    responses: { 200: { description: 'The conversation', schema: appConversationSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.conversations.get(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/events/search`,
    operationId: 'searchAgentServerEvents',
    summary: 'The conversation’s events in the agent-server shape ({id, timestamp, source, kind, ...}), oldest first',
    tag: TAG,
    conversationKey: true,
    query: cursorQuerySchema,
    responses: {
      200: { description: 'A page of events', schema: agentServerEventPageSchema },
      401: unauthorized,
      404: notFoundDoc,
      422: invalid,
    },
    async handle({ platform, principal, params, query }) {
      // The service types its events loosely (`Record<string, unknown>`); each is `toAgentServerEvent`'s `{ id, timestamp, source, kind, ...data }`.
      const page = await platform.conversations.searchAgentServerEvents(principal, params.id, query);
      return { status: 200, body: page as z.output<typeof agentServerEventPageSchema> };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/events/count`,
    operationId: 'countAgentServerEvents',
    summary: 'How many events the conversation holds',
    tag: TAG,
    conversationKey: true,
    responses: { 200: { description: 'The count', schema: z.number().int() }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.conversations.countEvents(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: `${BASE}/events`,
    operationId: 'sendAgentServerMessage',
    summary: 'A follow-up message (SendMessageRequest); with `run: true` an idle agent takes the conversation up again with its whole history',
    tag: TAG,
    conversationKey: true,
    body: { schema: sendMessageInputSchema, required: true },
    responses: { 200: done, 401: unauthorized, 404: notFoundDoc, 409: conflict, ...bodyErrors },
    async handle({ platform, principal, params, body }) {
      return { status: 200, body: await platform.conversations.sendMessage(principal, params.id, body) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: `${BASE}/run`,
    operationId: 'runAgentServerConversation',
    summary: 'Takes the conversation up again with its whole history (409 when the agent is at work or the sandbox is gone)',
    tag: TAG,
    conversationKey: true,
    body: { schema: z.object({}).loose(), required: false },
    responses: { 200: done, 401: unauthorized, 404: notFoundDoc, 409: conflict },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.conversations.resume(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: `${BASE}/pause`,
    operationId: 'pauseAgentServerConversation',
    summary: 'Stops the agent after its current step; the conversation becomes paused',
    tag: TAG,
    conversationKey: true,
    body: { schema: z.object({}).loose(), required: false },
    responses: { 200: done, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.conversations.pause(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: `${BASE}/events/respond_to_confirmation`,
    operationId: 'respondToConfirmation',
    summary: 'Accepts or rejects the action held for confirmation (confirmation_mode)',
    tag: TAG,
    conversationKey: true,
    body: { schema: confirmationResponseSchema, required: true },
    responses: { 200: done, 401: unauthorized, 404: notFoundDoc, 409: conflict, ...bodyErrors },
    async handle({ platform, principal, params, body }) {
      return { status: 200, body: await platform.conversations.respondToConfirmation(principal, params.id, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/agent_final_response`,
    operationId: 'getAgentFinalResponse',
    summary: 'The agent’s final answer (its finish message, or its last message); "" before it gave one',
    tag: TAG,
    conversationKey: true,
    responses: { 200: { description: 'The answer', schema: z.object({ response: z.string() }) }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.conversations.finalResponse(principal, params.id) };
    },
  }),
] as const;
