/** A subscription's state in words: enabled, failing (since when, how many attempts) or disabled (and why). */
import type { Subscription } from '@agent-platform/client';
import { Time } from '../components.js';

export function SubscriptionState({ subscription }: { subscription: Subscription }) {
  if (!subscription.enabled) {
    return (
      <>
        disabled
        {subscription.disabled_reason && <small class="detail">{subscription.disabled_reason}</small>}
      </>
    );
  }
  if (subscription.consecutive_failures === 0) return <>enabled</>;
  return (
    <>
      enabled, failing
      <small class="detail">
        {subscription.consecutive_failures} failed {subscription.consecutive_failures === 1 ? 'attempt' : 'attempts'} since{' '}
        <Time value={subscription.failing_since} />
      </small>
    </>
  );
}
