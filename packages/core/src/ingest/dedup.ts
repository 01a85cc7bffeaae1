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
    if (value) return dedupIdentityOf(value, source, body);
  }
  return dedupIdentityOf(null, source, body);
}

/** What a delivery is deduplicated by when the sender's id is already read (a host's, from its body or headers): it, else the hash. */
export function dedupIdentityOf(deliveryId: string | null, source: string, body: Uint8Array): DedupIdentity {
  if (deliveryId) return { providerDeliveryId: deliveryId.slice(0, 200), key: `id:${deliveryId.slice(0, 200)}` };
  const hash = createHash('sha256').update(source).update('\u0000').update(body).digest('hex');
  return { providerDeliveryId: null, key: `sha256:${hash}` };
}
