/** One subscription: its fields, and the messages sent to it (subscription-messages.tsx). */
import { Fields, ErrorNotice, Link, PageTitle, Time } from '../components.js';
import { LIVE_POLL_MS, useResource } from '../hooks.js';
import { useClient } from '../session.js';
import { Messages } from './subscription-messages.js';
import { SubscriptionState } from './subscription-state.js';

export function SubscriptionPage({ id }: { id: string }) {
  const client = useClient();
  const subscription = useResource((signal) => client.subscriptions.get(id, { signal }), [id], { pollMs: LIVE_POLL_MS });
  const record = subscription.data;
  return (
    <>
      <PageTitle>Subscription {record ? record.url : id}</PageTitle>
      <p>
        <Link to="subscriptions">All subscriptions</Link>
      </p>
      <ErrorNotice error={subscription.error} context="Loading the subscription failed" />
      {record && (
        <Fields
          rows={[
            ['URL', <code class="url">{record.url}</code>],
            ['Event types', record.event_types.join(', ')],
            ['Description', record.description],
            ['State', <SubscriptionState subscription={record} />],
            ['Last success', <Time value={record.last_success_at} />],
            ['Created', <Time value={record.created_at} />],
          ]}
        />
      )}
      <Messages subscriptionId={id} enabled={record?.enabled ?? true} />
    </>
  );
}
