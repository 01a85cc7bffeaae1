import type { OutboundMessage, OutboundMessageRecord, Subscription, SubscriptionRecord } from '../schemas/subscription.js';

/** A subscription as returned: never its secret. */
export function toSubscriptionView(record: SubscriptionRecord): Subscription {
  const { secret_encrypted: _secret, ...view } = record;
  return view;
}

/** A message as returned: the sender's lease stays internal. */
export function toOutboundMessageView(record: OutboundMessageRecord): OutboundMessage {
  const { lease_owner: _owner, lease_expires_at: _expires, trace_parent: _trace, ...view } = record;
  return view;
}
