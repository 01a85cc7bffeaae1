/** The form that creates a subscription: a URL, the event types it wants, a description. */
import { OUTBOUND_EVENT_TYPES, type OutboundEventType } from '@agent-platform/client';
import { fieldValue } from '../components.js';
import { ActionForm, Submit } from '../forms.js';
import { useAction } from '../hooks.js';
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

export function CreateSubscription({ onCreated }: { onCreated: (created: { url: string; secret: string }) => void }) {
  const client = useClient();
  const create = useAction(async (form: HTMLFormElement) => {
    const eventTypes = OUTBOUND_EVENT_TYPES.filter((type) => (form.elements.namedItem(`event-${type}`) as HTMLInputElement | null)?.checked);
    const created = await client.subscriptions.create({
      url: fieldValue(form, 'url') ?? '',
      event_types: eventTypes,
      description: fieldValue(form, 'description'),
    });
    form.reset();
    onCreated(created);
  });
  return (
    <section aria-labelledby="create-subscription-title">
      <h2 id="create-subscription-title">Create a subscription</h2>
      <ActionForm onSubmit={create.run}>
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
        <Submit action={create} failed="Creating failed">
          Create subscription
        </Submit>
      </ActionForm>
    </section>
  );
}
