/**
 * OpenHands' app-conversation endpoints beyond the platform's own: rename, delete, download as
 * a zip of its events, and read a file of its sandbox workspace.
 * @module
 */
import { appConversationSchema, appConversationUpdateInputSchema, successSchema } from '@agent-platform/core';
import { z } from 'zod';
import { defineRoute } from '../routing/define-route.js';
import { attachment } from '../routing/response-kind.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

const TAG = 'app-conversations';
const BASE = '/api/v1/app-conversations/{id}';
const fileQuerySchema = z.object({
  /** Absolute inside the workspace, or relative to it. */
  file_path: z.string().min(1).max(4096),
});

export const openHandsConversationRoutes = [
  defineRoute({
    method: 'PATCH',
    role: 'member',
    path: BASE,
    operationId: 'updateAppConversation',
    summary: 'Rename a conversation (`title`); `public` is refused: public sharing is not supported',
    tag: TAG,
    body: { schema: appConversationUpdateInputSchema, required: true },
    responses: { 200: { description: 'The conversation', schema: appConversationSchema }, 401: unauthorized, 404: notFoundDoc, ...bodyErrors },
    async handle({ platform, principal, params, body }) {
      return { status: 200, body: await platform.conversations.update(principal, params.id, body) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    role: 'member',
    path: BASE,
    operationId: 'deleteAppConversation',
    summary: 'Delete a conversation with its events and start task; its agent is stopped and its sandbox deleted',
    tag: TAG,
    responses: {
      200: { description: 'Deleted', schema: successSchema },
      401: unauthorized,
      404: notFoundDoc,
      409: errorDoc('The conversation belongs to an automation run still under way'),
    },
    async handle({ platform, principal, params }) {
      await platform.conversations.delete(principal, params.id);
      return { status: 200, body: { success: true } };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/download`,
    operationId: 'downloadAppConversation',
    summary: 'The conversation as a zip: meta.json and one event-NNNNN-<id>.json per event',
    tag: TAG,
    responses: {
      // Bytes: `handle` answers a Uint8Array, a client reads a Blob.
      200: { description: 'The zip (attachment)', contentType: 'application/zip' },
      401: unauthorized,
      404: notFoundDoc,
    },
    async handle({ platform, principal, params }) {
      const archive = await platform.conversations.download(principal, params.id);
      return { status: 200, body: archive.bytes, headers: { 'content-disposition': attachment(archive.filename) } };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/file`,
    operationId: 'readAppConversationFile',
    summary: 'The text of a file in the conversation’s sandbox workspace (at most 10 MiB)',
    tag: TAG,
    query: fileQuerySchema,
    responses: {
      // Text: `handle` answers a string, sent as `text/plain; charset=utf-8`.
      200: { description: 'The file’s text', contentType: 'text/plain' },
      401: unauthorized,
      404: errorDoc('No such conversation, or no such file'),
      409: errorDoc('The conversation’s sandbox is gone, paused or not running'),
      413: errorDoc('The file is larger than 10 MiB'),
      422: invalid,
      503: errorDoc('No sandbox runtime is configured, or the read timed out'),
    },
    async handle({ platform, principal, params, query }) {
      return { status: 200, body: await platform.conversations.readFile(principal, params.id, query.file_path) };
    },
  }),
] as const;
