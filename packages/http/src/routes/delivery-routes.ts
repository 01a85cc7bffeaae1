import { deliveryListQuerySchema, deliveryListSchema, deliverySchema, ingestResultSchema } from '@agent-platform/core';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';
import { z } from 'zod';

const BASE = '/api/automation/v1/deliveries';
const TAG = 'deliveries';

/** Stands in for a stored payload that cannot be serialized (nested too deep). */
export const UNSHOWABLE_PAYLOAD = '[payload not shown: it is nested too deeply to serialize; it is kept as received]';

export const deliveryRoutes = [
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: BASE,
    operationId: 'listDeliveries',
    summary: 'The delivery log, newest first, with each candidate automation’s outcome',
    tag: TAG,
    query: deliveryListQuerySchema,
    responses: { 200: { description: 'A page of deliveries (without payloads)', schema: deliveryListSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.deliveries.list(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${BASE}/{id}`,
    operationId: 'getDelivery',
    summary: 'One delivery with its payload and outcomes',
    tag: TAG,
    responses: { 200: { description: 'The delivery', schema: deliverySchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.deliveries.get(principal, params.id) };
    },
    // A payload stored before nesting was limited may be too deep to serialize: the delivery
    // stays readable, with a note in place of its payload.
    unserializable: (delivery) => ({ ...delivery, payload: UNSHOWABLE_PAYLOAD }),
  }),
  defineRoute({
    method: 'POST',
    role: 'member',
    path: `${BASE}/{id}/replay`,
    operationId: 'replayDelivery',
    summary: 'Match a stored delivery again against the current automations',
    tag: TAG,
    body: { schema: z.strictObject({}), required: false },
    responses: {
      200: { description: 'The new delivery’s result', schema: ingestResultSchema },
      401: unauthorized,
      404: notFoundDoc,
      409: errorDoc('Nothing to replay (a duplicate, or no event key)'),
      ...bodyErrors,
    },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.deliveries.replay(principal, params.id) };
    },
  }),
] as const;
