/**
 * Outbound-event subscriptions: the list with each one's health, create one (its secret shown
 * once), enable or disable, rotate a secret (the new one shown once), delete. A subscription's
 * messages are on its own page (subscription.tsx).
 */
import type { Subscription } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { ConfirmButton, ErrorNotice, Hidden, Link, PageTitle, SecretOnce, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { segment } from '../router.js';
import { NeedsRole } from '../role-note.js';
import { useClient, usePermissions } from '../session.js';
import { ResourceTable, type Column } from '../table.js';
import { CreateSubscription } from './subscription-form.js';
import { SubscriptionState } from './subscription-state.js';

const COLUMNS: Column<Subscription>[] = [
  {
    header: 'URL',
    cell: (subscription) => (
      <>
        <code class="url">{subscription.url}</code>
        {subscription.description && <small class="detail">{subscription.description}</small>}
      </>
    ),
  },
  { header: 'Events', cell: (subscription) => subscription.event_types.join(', ') },
  { header: 'State', cell: (subscription) => <SubscriptionState subscription={subscription} /> },
  { header: 'Last success', cell: (subscription) => <Time value={subscription.last_success_at} /> },
];

export function SubscriptionsPage() {
  const client = useClient();
  const can = usePermissions();
  const subscriptions = useResource((signal) => client.subscriptions.list({ limit: 100 }, { signal }), []);
  const [shown, setShown] = useState<{ title: string; url: string; secret: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const toggle = useAction(async (subscription: Subscription) => {
    const updated = await client.subscriptions.update(subscription.id, { enabled: !subscription.enabled });
    subscriptions.reload();
    setNote(`Subscription to ${updated.url} ${updated.enabled ? 'enabled' : 'disabled'}.`);
  });
  const rotate = useAction(async (id: string) => {
    const rotated = await client.subscriptions.rotateSecret(id);
    subscriptions.reload();
    setShown({ title: `New secret for ${rotated.url}: copy it now`, url: rotated.url, secret: rotated.secret });
  });
  const remove = useAction(async (subscription: Subscription) => {
    await client.subscriptions.delete(subscription.id);
    subscriptions.reload();
    setNote(`Subscription to ${subscription.url} deleted.`);
  });
  const actions: Column<Subscription> = {
    header: 'Actions',
    cell: (subscription) => (
      <div class="actions">
        <Link to={`subscriptions/${segment(subscription.id)}`} class="button-link">
          Messages<Hidden> to {subscription.url}</Hidden>
        </Link>
        {can.admin && (
          <>
            <button type="button" class="secondary outline" aria-busy={toggle.busy ? 'true' : undefined} onClick={() => void toggle.run(subscription)}>
              {subscription.enabled ? 'Disable' : 'Enable'}
              <Hidden> subscription to {subscription.url}</Hidden>
            </button>
            <ConfirmButton
              label="Rotate secret"
              hidden={`of subscription to ${subscription.url}`}
              question={`Rotate the secret of ${subscription.url}? The current one stops signing at once.`}
              confirm="Rotate now"
              busy={rotate.busy}
              onConfirm={() => void rotate.run(subscription.id)}
            />
            <ConfirmButton
              label="Delete"
              hidden={`subscription to ${subscription.url}`}
              question={`Delete the subscription to ${subscription.url}? Its messages go with it.`}
              confirm="Delete subscription"
              onConfirm={() => void remove.run(subscription)}
            />
          </>
        )}
      </div>
    ),
  };
  return (
    <>
      <PageTitle>Subscriptions</PageTitle>
      <p>
        The platform tells each subscriber URL about the events it asks for, signed per Standard Webhooks and retried for about a day. Its signing secret is
        shown once, when it is made.
      </p>
      {shown && (
        <SecretOnce
          title={shown.title}
          subject={shown.url}
          secret={shown.secret}
          holder="receiver"
          onDone={() => {
            setShown(null);
            setNote('The secret is hidden and cannot be shown again.');
          }}
        />
      )}
      {note && <StatusNote>{note}</StatusNote>}
      <ErrorNotice error={toggle.error} context="Changing the subscription failed" />
      <ErrorNotice error={rotate.error} context="Rotating the secret failed" />
      <ErrorNotice error={remove.error} context="Deleting failed" />
      <ResourceTable
        resource={subscriptions}
        rowsOf={(data) => data.subscriptions}
        rowKey={(subscription) => subscription.id}
        columns={[...COLUMNS, actions]}
        caption="Subscriptions"
        empty="No subscriptions yet."
        errorContext="Loading the subscriptions failed"
      />
      {can.admin ? (
        <CreateSubscription
          onCreated={(created) => {
            subscriptions.reload();
            setShown({ title: `Subscription to ${created.url} created: copy its secret now`, url: created.url, secret: created.secret });
          }}
        />
      ) : (
        <NeedsRole needed="admin" what="Creating, changing and deleting subscriptions" />
      )}
    </>
  );
}
