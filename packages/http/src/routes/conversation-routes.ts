import {
  appConversationSchema,
  conversationEventSchema,
  cursorQuerySchema,
  pageSchema,
  startConversationInputSchema,
  startTaskSchema,
} from '@agent-platform/core';
import { z } from 'zod';
import { defineRoute } from '../routing/define-route.js';
import { nameSchema } from '../openapi/schema-names.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const TAG = 'app-conversations';
const BASE = '/api/v1/app-conversations';
const MAX_BATCH = 100;
const unavailable = errorDoc('No sandbox runtime is configured');
/** The repeated `ids=` parameter, bounded. */
const idsSchema = z.array(z.string()).max(MAX_BATCH, `at most ${MAX_BATCH} ids`);

/** A page of conversations (one schema: two routes answer it). */
export const appConversationPageSchema = nameSchema('AppConversationPage', pageSchema(appConversationSchema));
const startTaskPageSchema = nameSchema('StartTaskPage', pageSchema(startTaskSchema));
/** A page of conversation events (one schema: a conversation's and a run's answer it). */
export const conversationEventPageSchema = nameSchema('ConversationEventPage', pageSchema(conversationEventSchema));

export const conversationRoutes = [
  defineRoute({
    method: 'POST',
    role: 'member',
    path: BASE,
    operationId: 'startAppConversation',
    summary: 'Start a conversation: answers with its start task at once; the sandbox and the agent follow in the background',
    tag: TAG,
    body: { schema: startConversationInputSchema, required: false },
    responses: { 200: { description: 'The start task', schema: startTaskSchema }, 401: unauthorized, ...bodyErrors, 503: unavailable },
    async handle({ platform, principal, body }) {
      return { status: 200, body: await platform.conversations.start(principal, body === undefined ? {} : body) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: BASE,
    operationId: 'listAppConversations',
    summary: 'With `ids=` (repeated): those conversations, null for an unknown one. Without: a page of the caller’s conversations, newest first',
    tag: TAG,
    query: cursorQuerySchema.extend({ ids: idsSchema.optional() }),
    responses: {
      200: { description: 'A list by id, or a page', schema: z.union([z.array(appConversationSchema.nullable()), appConversationPageSchema]) },
      401: unauthorized,
      422: invalid,
    },
    async handle({ platform, principal, query: { ids, ...page } }) {
      if (ids) return { status: 200, body: await platform.conversations.batchGet(principal, ids) };
      return { status: 200, body: await platform.conversations.search(principal, page) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/search`,
    operationId: 'searchAppConversations',
    summary: 'A page of the caller’s conversations, newest first',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of conversations', schema: appConversationPageSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.conversations.search(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/start-tasks`,
    operationId: 'batchGetStartTasks',
    summary: 'The caller’s start tasks by id (`ids=` repeated); null for an unknown one',
    tag: TAG,
    query: z.object({ ids: idsSchema.default([]) }),
    responses: { 200: { description: 'One entry per id, in order', schema: z.array(startTaskSchema.nullable()) }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.conversations.tasks(principal, query.ids) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/start-tasks/search`,
    operationId: 'searchStartTasks',
    summary: 'A page of the caller’s start tasks, newest first',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of start tasks', schema: startTaskPageSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.conversations.searchTasks(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/{id}`,
    operationId: 'getAppConversation',
    summary: 'One of the caller’s conversations',
    tag: TAG,
    responses: { 200: { description: 'The conversation', schema: appConversationSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.conversations.get(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/{id}/events`,
    operationId: 'listAppConversationEvents',
    summary: 'A conversation’s events, oldest first, paged',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of events', schema: conversationEventPageSchema }, 401: unauthorized, 404: notFoundDoc, 422: invalid },
    async handle({ platform, principal, params, query }) {
      return { status: 200, body: await platform.conversations.events(principal, params.id, query) };
    },
  }),
] as const;
