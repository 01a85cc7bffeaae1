/**
 * Outbound-event subscriptions (`/api/automation/v1/subscriptions`): the org's
 * subscribers, the messages sent to each with their attempts, and replay. The signing secret is
 * in the answers to create and rotate only.
 * @module
 */
import {
  outboundMessageListSchema,
  outboundMessageQuerySchema,
  outboundMessageSchema,
  pageQuerySchema,
  subscriptionCreateInputSchema,
  subscriptionListSchema,
  subscriptionSchema,
  subscriptionUpdateInputSchema,
  subscriptionWithSecretSchema,
} from '@agent-platform/core';
import { z } from 'zod';
import { defineRoute } from '../routing/define-route.js';
import { bodyErrors, errorDoc, invalid, notFoundDoc, unauthorized } from './shared-responses.js';

// A static segment after `v1`: the router ranks it above the automations' `/api/automation/v1/{id}`.
const BASE = '/api/automation/v1/subscriptions';
const ONE = `${BASE}/{subscription_id}`;
const MESSAGE = `${ONE}/messages/{message_id}`;
const TAG = 'subscriptions';

/** `limit`/`offset` with the optional `status` filter of a subscription's messages. */
const messageListQuerySchema = pageQuerySchema.extend(outboundMessageQuerySchema.shape);

/** The actions that need no input still take an empty JSON object, as `cancel` and `replay` elsewhere do. */
const noInput = { schema: z.strictObject({}), required: false } as const;

export const subscriptionRoutes = [
  defineRoute({
    method: 'POST',
    role: 'admin',
    path: BASE,
    operationId: 'createSubscription',
    summary: 'Subscribe a URL to outbound events',
    tag: TAG,
    body: { schema: subscriptionCreateInputSchema, required: true },
    responses: {
      201: { description: 'Created, with its signing secret (`whsec_...`), shown only here and at rotate', schema: subscriptionWithSecretSchema },
      401: unauthorized,
      ...bodyErrors,
    },
    async handle({ platform, principal, body }) {
      return { status: 201, body: await platform.subscriptions.create(principal, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: BASE,
    operationId: 'listSubscriptions',
    summary: 'The organization’s subscriptions',
    tag: TAG,
    query: pageQuerySchema,
    responses: { 200: { description: 'A page of subscriptions, without secrets', schema: subscriptionListSchema }, 401: unauthorized, 422: invalid },
    async handle({ platform, principal, query }) {
      return { status: 200, body: await platform.subscriptions.list(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: ONE,
    operationId: 'getSubscription',
    summary: 'One subscription, with its failure count',
    tag: TAG,
    responses: { 200: { description: 'The subscription', schema: subscriptionSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.subscriptions.get(principal, params.subscription_id) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    role: 'admin',
    path: ONE,
    operationId: 'updateSubscription',
    summary: 'Change URL, event types, description or enabled; enabling starts the failure count afresh',
    tag: TAG,
    body: { schema: subscriptionUpdateInputSchema, required: true },
    responses: { 200: { description: 'The subscription', schema: subscriptionSchema }, 401: unauthorized, 404: notFoundDoc, ...bodyErrors },
    async handle({ platform, principal, params, body }) {
      return { status: 200, body: await platform.subscriptions.update(principal, params.subscription_id, body) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    role: 'admin',
    path: ONE,
    operationId: 'deleteSubscription',
    summary: 'Delete a subscription and its messages (pending ones are never sent)',
    tag: TAG,
    responses: { 204: { description: 'Deleted' }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      await platform.subscriptions.delete(principal, params.subscription_id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'admin',
    path: `${ONE}/rotate-secret`,
    operationId: 'rotateSubscriptionSecret',
    summary: 'Replace the signing secret, in force from the next attempt',
    tag: TAG,
    body: noInput,
    responses: {
      200: { description: 'The subscription with its new secret, shown only here', schema: subscriptionWithSecretSchema },
      401: unauthorized,
      404: notFoundDoc,
      ...bodyErrors,
    },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.subscriptions.rotateSecret(principal, params.subscription_id) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: `${ONE}/messages`,
    operationId: 'listSubscriptionMessages',
    summary: 'A subscription’s messages, newest first, each with its attempts',
    tag: TAG,
    query: messageListQuerySchema,
    responses: { 200: { description: 'A page of messages', schema: outboundMessageListSchema }, 401: unauthorized, 404: notFoundDoc, 422: invalid },
    async handle({ platform, principal, params, query }) {
      return { status: 200, body: await platform.subscriptions.listMessages(principal, params.subscription_id, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    role: 'viewer',
    path: MESSAGE,
    operationId: 'getSubscriptionMessage',
    summary: 'One message with its attempt log',
    tag: TAG,
    responses: { 200: { description: 'The message', schema: outboundMessageSchema }, 401: unauthorized, 404: notFoundDoc },
    async handle({ platform, principal, params }) {
      return { status: 200, body: await platform.subscriptions.getMessage(principal, params.subscription_id, params.message_id) };
    },
  }),
  defineRoute({
    method: 'POST',
    role: 'admin',
    path: `${MESSAGE}/replay`,
    operationId: 'replaySubscriptionMessage',
    summary: 'Send a message again now, with the same `webhook-id`',
    tag: TAG,
    body: noInput,
    responses: {
      // 202: the message is queued again; the attempt happens after the answer.
      202: { description: 'The message, pending again', schema: outboundMessageSchema },
      401: unauthorized,
      404: notFoundDoc,
      409: errorDoc('The message is still pending, or the subscription is disabled'),
      ...bodyErrors,
    },
    async handle({ platform, principal, params }) {
      return { status: 202, body: await platform.subscriptions.replayMessage(principal, params.subscription_id, params.message_id) };
    },
  }),
] as const;
