import { offsetIterator, type IterateOptions } from '../iteration/paging.js';
import type { CallOptions, Transport } from '../transport/transport.js';
import type { PageQueryInput, WebhookCreateInput, WebhookRotateInput, WebhookUpdateInput } from '../transport/types.js';

/** Custom webhook sources of the caller's org (`/api/automation/v1/webhooks`). */
export function webhooksNamespace(transport: Transport) {
  const list = (query: PageQueryInput = {}, options?: CallOptions) => transport.call('GET /api/automation/v1/webhooks', { query }, options);
  return {
    /** Registers a source. `webhook_secret` is in the answer only when the service generated it. */
    register: (input: WebhookCreateInput, options?: CallOptions) => transport.call('POST /api/automation/v1/webhooks', { json: input }, options),
    /** A page of webhooks (`limit` 1–100, `offset`), with `total`. */
    list,
    /** Every webhook, page by page. */
    iterate: (options?: IterateOptions) => offsetIterator(list, 'webhooks', options),
    get: (id: string, options?: CallOptions) => transport.call('GET /api/automation/v1/webhooks/{id}', { params: { id } }, options),
    /** Changes name, event key, signature settings or `enabled`; the source cannot change. */
    update: (id: string, input: WebhookUpdateInput, options?: CallOptions) =>
      transport.call('PATCH /api/automation/v1/webhooks/{id}', { params: { id }, json: input }, options),
    delete: (id: string, options?: CallOptions) => transport.call('DELETE /api/automation/v1/webhooks/{id}', { params: { id } }, options),
    /** A new secret (given, or generated), shown once; the old one verifies for `grace_period_seconds` (default 24 h). */
    rotateSecret: (id: string, input: WebhookRotateInput = {}, options?: CallOptions) =>
      transport.call('POST /api/automation/v1/webhooks/{id}/rotate-secret', { params: { id }, json: input }, options),
  };
}
