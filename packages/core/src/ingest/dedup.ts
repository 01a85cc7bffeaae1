import { createHash } from 'node:crypto';
import { DELIVERY_ID_HEADERS } from '../signatures/registry.js';
import { header, type RequestHeaders } from './request-headers.js';

export interface DedupIdentity {
  /** The sender's delivery id, when it sent one. */
  providerDeliveryId: string | null;
  /** What a redelivery is recognised by: the provider id, or a hash of source and body. */
  key: string;
}

/** What a delivery is deduplicated by: the provider's delivery id, or else a hash of the source and the raw body. */
export function dedupIdentity(source: string, headers: RequestHeaders, body: Uint8Array, deliveryIdHeader: string | null): DedupIdentity {
  // Without a header named by the webhook: the registered senders' delivery-id headers, in order.
  const names = deliveryIdHeader ? [deliveryIdHeader] : DELIVERY_ID_HEADERS;
  for (const name of names) {
    const value = header(headers, name)?.trim();
    if (value) return { providerDeliveryId: value.slice(0, 200), key: `id:${value.slice(0, 200)}` };
  }
  const hash = createHash('sha256').update(source).update('\u0000').update(body).digest('hex');
  return { providerDeliveryId: null, key: `sha256:${hash}` };
}
