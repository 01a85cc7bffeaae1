import { offsetIterator, type IterateOptions } from '../iteration/paging.js';
import type { CallOptions, Transport } from '../transport/transport.js';
import type {
  OutboundMessageListQueryInput,
  OutboundMessageStatus,
  PageQueryInput,
  SubscriptionCreateInput,
  SubscriptionUpdateInput,
} from '../transport/types.js';

export interface MessageIterateOptions extends IterateOptions {
  status?: OutboundMessageStatus;
}

/**
 * Outbound-event subscriptions of the caller's org (`/api/automation/v1/subscriptions`): URLs the
 * platform POSTs signed events to, and the messages sent to each, with every attempt.
 */
export function subscriptionsNamespace(transport: Transport) {
  const list = (query: PageQueryInput = {}, options?: CallOptions) => transport.call('GET /api/automation/v1/subscriptions', { query }, options);
  const listMessages = (id: string, query: OutboundMessageListQueryInput = {}, options?: CallOptions) =>
    transport.call('GET /api/automation/v1/subscriptions/{subscription_id}/messages', { params: { subscription_id: id }, query }, options);
  return {
    /** Subscribes a URL; the answer holds the signing secret (`whsec_...`), shown only here and by `rotateSecret`. */
    create: (input: SubscriptionCreateInput, options?: CallOptions) => transport.call('POST /api/automation/v1/subscriptions', { json: input }, options),
    /** A page of subscriptions (`limit` 1–100, `offset`), with `total`; never their secrets. */
    list,
    /** Every subscription, page by page. */
    iterate: (options?: IterateOptions) => offsetIterator(list, 'subscriptions', options),
    get: (id: string, options?: CallOptions) =>
      transport.call('GET /api/automation/v1/subscriptions/{subscription_id}', { params: { subscription_id: id } }, options),
    /** Changes any subset of `url`, `event_types`, `description`, `enabled`; enabling starts the failure count afresh. */
    update: (id: string, input: SubscriptionUpdateInput, options?: CallOptions) =>
      transport.call('PATCH /api/automation/v1/subscriptions/{subscription_id}', { params: { subscription_id: id }, json: input }, options),
    /** Deletes it and its messages; pending ones are never sent. */
    delete: (id: string, options?: CallOptions) =>
      transport.call('DELETE /api/automation/v1/subscriptions/{subscription_id}', { params: { subscription_id: id } }, options),
    /** A new signing secret, used from the next attempt on, shown only in this answer. */
    rotateSecret: (id: string, options?: CallOptions) =>
      transport.call('POST /api/automation/v1/subscriptions/{subscription_id}/rotate-secret', { params: { subscription_id: id } }, options),
    /** A page of the subscription's messages, newest first, each with its attempts; filter by `status`. */
    listMessages,
    /** Every message of the subscription (optionally of one status), page by page. */
    iterateMessages: (id: string, { status, ...options }: MessageIterateOptions = {}) =>
      offsetIterator((page, call) => listMessages(id, { ...page, status }, call), 'messages', options),
    getMessage: (id: string, messageId: string, options?: CallOptions) =>
      transport.call(
        'GET /api/automation/v1/subscriptions/{subscription_id}/messages/{message_id}',
        { params: { subscription_id: id, message_id: messageId } },
        options,
      ),
    /**
     * Sends a message again now, with the same `webhook-id`; answers it `pending` again. A 409
     * while it is still pending or the subscription is disabled.
     */
    replayMessage: (id: string, messageId: string, options?: CallOptions) =>
      transport.call(
        'POST /api/automation/v1/subscriptions/{subscription_id}/messages/{message_id}/replay',
        { params: { subscription_id: id, message_id: messageId } },
        options,
      ),
  };
}
