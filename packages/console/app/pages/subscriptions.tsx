/**
 * Outbound-event subscriptions: the list with each one's health, create one (its secret shown
 * once), enable or disable, rotate a secret (the new one shown once), delete. A subscription's
 * messages are on its own page (subscription.tsx).
 */
import { OUTBOUND_EVENT_TYPES, type OutboundEventType, type Subscription } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { ConfirmButton, ErrorNotice, fieldValue, Link, PageTitle, SecretOnce, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { segment } from '../router.js';
import { useClient } from '../session.js';

/** What each event type is sent for, beside its checkbox. */
const EVENT_HELP: Record<OutboundEventType, string> = {
  'delivery.received': 'an inbound event was stored',
  'run.started': 'a run started',
  'run.completed': 'a run completed',
  'run.failed': 'a run failed',
  'run.cancelled': 'a run was cancelled',
  'subscription.disabled': 'the platform disabled a failing subscription',
};

export function SubscriptionsPage() {
  const client = useClient();
  const subscriptions = useResource((signal) => client.subscriptions.list({ limit: 100 }, { signal }), []);
  const [shown, setShown] = useState<{ title: string; url: string; secret: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const create = useAction(async (form: HTMLFormElement) => {
    const eventTypes = OUTBOUND_EVENT_TYPES.filter((type) => (form.elements.namedItem(`event-${type}`) as HTMLInputElement | null)?.checked);
    const created = await client.subscriptions.create({
      url: fieldValue(form, 'url') ?? '',
      event_types: eventTypes,
      description: fieldValue(form, 'description'),
    });
    form.reset();
    subscriptions.reload();
    setShown({ title: `Subscription to ${created.url} created: copy its secret now`, url: created.url, secret: created.secret });
  });
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
      <ErrorNotice error={subscriptions.error} context="Loading the subscriptions failed" />
      <ErrorNotice error={toggle.error} context="Changing the subscription failed" />
      <ErrorNotice error={rotate.error} context="Rotating the secret failed" />
      <ErrorNotice error={remove.error} context="Deleting failed" />
      {subscriptions.data &&
        (subscriptions.data.subscriptions.length === 0 ? (
          <p>No subscriptions yet.</p>
        ) : (
          <div class="overflow-auto">
            <table class="striped">
              <caption>Subscriptions</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">State</th>
                  <th scope="col">Last success</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {subscriptions.data.subscriptions.map((subscription) => (
                  <tr key={subscription.id}>
                    <td>
                      <code class="url">{subscription.url}</code>
                      {subscription.description && <small class="detail">{subscription.description}</small>}
                    </td>
                    <td>{subscription.event_types.join(', ')}</td>
                    <td>
                      <SubscriptionState subscription={subscription} />
                    </td>
                    <td>
                      <Time value={subscription.last_success_at} />
                    </td>
                    <td>
                      <div class="actions">
                        <Link to={`subscriptions/${segment(subscription.id)}`} class="button-link">
                          Messages<span class="visually-hidden"> to {subscription.url}</span>
                        </Link>
                        <button
                          type="button"
                          class="secondary outline"
                          aria-busy={toggle.busy ? 'true' : undefined}
                          onClick={() => void toggle.run(subscription)}
                        >
                          {subscription.enabled ? 'Disable' : 'Enable'}
                          <span class="visually-hidden"> subscription to {subscription.url}</span>
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
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      <section aria-labelledby="create-subscription-title">
        <h2 id="create-subscription-title">Create a subscription</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void create.run(event.currentTarget as HTMLFormElement);
          }}
        >
          <div>
            <label>
              URL
              <input name="url" type="url" required maxLength={2000} placeholder="https://hooks.example.com/agent-platform" aria-describedby="url-help" />
            </label>
            <small id="url-help">An http or https URL the platform can reach, without credentials in it.</small>
          </div>
          <fieldset>
            <legend>Event types</legend>
            {OUTBOUND_EVENT_TYPES.map((type) => (
              // The help is a description, not part of the name: the checkbox is named by its type alone.
              <div key={type} class="choice">
                <label>
                  <input type="checkbox" name={`event-${type}`} aria-describedby={`event-help-${type}`} />
                  <code>{type}</code>
                </label>{' '}
                <small id={`event-help-${type}`} class="muted">
                  {EVENT_HELP[type]}
                </small>
              </div>
            ))}
          </fieldset>
          <label>
            Description
            <input name="description" maxLength={500} placeholder="optional" />
          </label>
          <button type="submit" aria-busy={create.busy ? 'true' : undefined}>
            Create subscription
          </button>
          <ErrorNotice error={create.error} context="Creating failed" />
        </form>
      </section>
    </>
  );
}

/** Enabled, failing (since when, how many attempts) or disabled (and why). */
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
