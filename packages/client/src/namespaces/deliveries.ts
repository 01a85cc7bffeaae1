import { offsetIterator, type IterateOptions } from '../iteration/paging.js';
import type { CallOptions, Transport } from '../transport/transport.js';
import type { DeliveryListQueryInput, DeliveryStatus } from '../transport/types.js';

export interface DeliveryIterateOptions extends IterateOptions {
  source?: string;
  status?: DeliveryStatus;
}

/** The delivery log: every verified inbound event, with each candidate automation's outcome. */
export function deliveriesNamespace(transport: Transport) {
  const list = (query: DeliveryListQueryInput = {}, options?: CallOptions) => transport.call('GET /api/automation/v1/deliveries', { query }, options);
  return {
    /** A page of deliveries, newest first, without payloads; filter by `source` and `status`. */
    list,
    /** Every delivery (optionally of one source or status), page by page. */
    iterate: ({ source, status, ...options }: DeliveryIterateOptions = {}) =>
      offsetIterator((page, call) => list({ ...page, source, status }, call), 'deliveries', options),
    /** One delivery with its payload and outcomes. */
    get: (id: string, options?: CallOptions) => transport.call('GET /api/automation/v1/deliveries/{id}', { params: { id } }, options),
    /** Matches a stored delivery again against today's automations: a new delivery, new runs. */
    replay: (id: string, options?: CallOptions) => transport.call('POST /api/automation/v1/deliveries/{id}/replay', { params: { id }, json: {} }, options),
  };
}
