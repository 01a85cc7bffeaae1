import {
  appConversationSchema,
  conversationEventSchema,
  cursorQuerySchema,
  pageSchema,
  parseInput,
  startConversationInputSchema,
  startTaskSchema,
  validationError,
} from '@agent-platform/core';
import { z } from 'zod';
import type { RouteDefinition, RouteContext } from '../types.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const TAG = 'app-conversations';
const BASE = '/api/v1/app-conversations';
const MAX_BATCH = 100;
const unavailable = errorDoc('No sandbox runtime is configured');
const cursor = (query: URLSearchParams) => parseInput(cursorQuerySchema, Object.fromEntries(query), 'query');

/** The repeated `ids=` parameter, bounded. */
function idsOf(query: URLSearchParams): string[] {
  const ids = query.getAll('ids');
  if (ids.length > MAX_BATCH) throw validationError(['query', 'ids'], `at most ${MAX_BATCH} ids`);
  return ids;
}

const search = ({ platform, principal, query }: RouteContext) => platform.conversations.search(principal, cursor(query));

export const conversationRoutes: RouteDefinition[] = [
  {
    method: 'POST',
    path: BASE,
    operationId: 'startAppConversation',
    summary: 'Start a conversation: answers with its start task at once; the sandbox and the agent follow in the background',
    tag: TAG,
    body: { schema: startConversationInputSchema, required: false },
    responses: { 200: { description: 'The start task', schema: startTaskSchema }, 401: unauthorized, ...bodyErrors, 503: unavailable },
    async handle({ platform, principal, body }) {
      return { status: 200, body: await platform.conversations.start(principal, body === undefined ? {} : body) };
    },
  },
  {
    method: 'GET',
    path: BASE,
    operationId: 'listAppConversations',
    summary: 'With `ids=` (repeated): those conversations, null for an unknown one. Without: a page of the caller’s conversations, newest first',
    tag: TAG,
    query: cursorQuerySchema.extend({ ids: z.array(z.string()).max(MAX_BATCH).optional() }),
    responses: {
      200: { description: 'A list by id, or a page', schema: z.union([z.array(appConversationSchema.nullable()), pageSchema(appConversationSchema)]) },
      401: unauthorized,
      422: invalid,
    },
    async handle(context) {
      if (context.query.has('ids')) return { status: 200, body: await context.platform.conversations.batchGet(context.principal, idsOf(context.query)) };
      return { status: 200, body: await search(context) };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/search`,
    operationId: 'searchAppConversations',
    summary: 'A page of the caller’s conversations, newest first',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of conversations', schema: pageSchema(appConversationSchema) }, 401: unauthorized, 422: invalid },
    async handle(context) {
      return { status: 200, body: await search(context) };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/start-tasks`,
    operationId: 'batchGetStartTasks',
    summary: 'The caller’s start tasks by id (`ids=` repeated); null for an unknown one',
    tag: TAG,
    query: z.object({ ids: z.array(z.string()).max(MAX_BATCH) }),
    responses: { 200: { description: 'One entry per id, in order', schema: z.array(startTaskSchema.nullable()) }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.conversations.tasks(principal, idsOf(query)) };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/start-tasks/search`,
    operationId: 'searchStartTasks',
    summary: 'A page of the caller’s start tasks, newest first',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of start tasks', schema: pageSchema(startTaskSchema) }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.conversations.searchTasks(principal, cursor(query)) };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/{id}`,
    operationId: 'getAppConversation',
    summary: 'One of the caller’s conversations',
    tag: TAG,
    responses: { 200: { description: 'The conversation', schema: appConversationSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.conversations.get(principal, params.id as string) };
    },
  },
  {
    method: 'GET',
    path: `${BASE}/{id}/events`,
    operationId: 'listAppConversationEvents',
    summary: 'A conversation’s events, oldest first, paged',
    tag: TAG,
    query: cursorQuerySchema,
    responses: { 200: { description: 'A page of events', schema: pageSchema(conversationEventSchema) }, 401: unauthorized, 404: notFoundDoc, 422: invalid },
    async handle({ platform, principal, params, query }) {
      return { status: 200, body: await platform.conversations.events(principal, params.id as string, cursor(query)) };
    },
  },
];
