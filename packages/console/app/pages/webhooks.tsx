/** Webhook sources: register one (its generated secret shown once), rotate a secret (the new one shown once), delete. */
import type { SignatureScheme, WebhookCreateInput } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { ConfirmButton, ErrorNotice, fieldValue, Muted, PageTitle, SecretOnce, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { useClient } from '../session.js';

const SCHEMES: SignatureScheme[] = ['hmac-sha256', 'standard-webhooks', 'stripe', 'slack'];

export function WebhooksPage() {
  const client = useClient();
  const webhooks = useResource((signal) => client.webhooks.list({ limit: 100 }, { signal }), []);
  const [shown, setShown] = useState<{ title: string; source: string; secret: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [scheme, setScheme] = useState<SignatureScheme>('hmac-sha256');
  const register = useAction(async (form: HTMLFormElement) => {
    const signatureHeader = fieldValue(form, 'signature_header');
    const eventKeyExpr = fieldValue(form, 'event_key_expr');
    const input: WebhookCreateInput = {
      name: fieldValue(form, 'name') ?? '',
      source: fieldValue(form, 'source') ?? '',
      signature_scheme: scheme,
      ...(scheme === 'hmac-sha256' && signatureHeader ? { signature_header: signatureHeader } : {}),
      ...(eventKeyExpr ? { event_key_expr: eventKeyExpr } : {}),
      event_key_header: fieldValue(form, 'event_key_header'),
      delivery_id_header: fieldValue(form, 'delivery_id_header'),
      webhook_secret: fieldValue(form, 'webhook_secret'),
    };
    const created = await client.webhooks.register(input);
    form.reset();
    webhooks.reload();
    if (created.webhook_secret)
      setShown({ title: `Webhook ${created.source} registered: copy its secret now`, source: created.source, secret: created.webhook_secret });
    else setNote(`Webhook ${created.source} registered with the secret you gave.`);
  });
  const rotate = useAction(async (id: string) => {
    const rotated = await client.webhooks.rotateSecret(id, {});
    webhooks.reload();
    setShown({ title: `New secret for ${rotated.source}: copy it now`, source: rotated.source, secret: rotated.webhook_secret });
  });
  const remove = useAction(async (id: string, source: string) => {
    await client.webhooks.delete(id);
    webhooks.reload();
    setNote(`Webhook ${source} deleted.`);
  });
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <p>Each registered source gets a URL to send signed events to. Its signing secret is shown once, when it is generated.</p>
      {shown && (
        <SecretOnce
          title={shown.title}
          subject={shown.source}
          secret={shown.secret}
          onDone={() => {
            setShown(null);
            setNote('The secret is hidden and cannot be shown again.');
          }}
        />
      )}
      {note && <StatusNote>{note}</StatusNote>}
      <ErrorNotice error={webhooks.error} context="Loading the webhooks failed" />
      <ErrorNotice error={rotate.error} context="Rotating the secret failed" />
      <ErrorNotice error={remove.error} context="Deleting failed" />
      {webhooks.data &&
        (webhooks.data.webhooks.length === 0 ? (
          <p>No webhooks registered yet.</p>
        ) : (
          <div class="overflow-auto">
            <table class="striped">
              <caption>Registered webhooks</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Source</th>
                  <th scope="col">URL</th>
                  <th scope="col">Signature</th>
                  <th scope="col">Event key</th>
                  <th scope="col">Previous secret valid until</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {webhooks.data.webhooks.map((webhook) => (
                  <tr key={webhook.id}>
                    <td>
                      {webhook.name}
                      {!webhook.enabled && <Muted> (disabled)</Muted>}
                    </td>
                    <td>{webhook.source}</td>
                    <td>
                      <code class="url">{webhook.webhook_url}</code>
                    </td>
                    <td>
                      {webhook.signature_scheme}
                      {webhook.signature_scheme === 'hmac-sha256' && <small class="detail">in {webhook.signature_header}</small>}
                    </td>
                    <td>{webhook.event_key_header ? `header ${webhook.event_key_header}` : <code>{webhook.event_key_expr}</code>}</td>
                    <td>
                      <Time value={webhook.previous_secret_expires_at} />
                    </td>
                    <td>
                      <div class="actions">
                        <ConfirmButton
                          label="Rotate secret"
                          hidden={`of ${webhook.source}`}
                          question={`Rotate ${webhook.source}'s secret? The current one keeps working for 24 hours.`}
                          confirm="Rotate now"
                          busy={rotate.busy}
                          onConfirm={() => void rotate.run(webhook.id)}
                        />
                        <ConfirmButton
                          label="Delete"
                          hidden={`webhook ${webhook.source}`}
                          question={`Delete ${webhook.source}? Its events are refused from now on.`}
                          confirm="Delete webhook"
                          onConfirm={() => void remove.run(webhook.id, webhook.source)}
                        />
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      <section aria-labelledby="register-title">
        <h2 id="register-title">Register a webhook</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void register.run(event.currentTarget as HTMLFormElement);
          }}
        >
          <div class="grid">
            <label>
              Name
              <input name="name" required maxLength={200} placeholder="Linear" />
            </label>
            <div>
              <label>
                Source
                <input name="source" required pattern="[a-z0-9]([a-z0-9\-]{0,48}[a-z0-9])?" placeholder="linear" aria-describedby="source-rule" />
              </label>
              <small id="source-rule">Lowercase letters, digits and hyphens; it names the URL and what automations trigger on.</small>
            </div>
          </div>
          <div class="grid">
            <label>
              Signature scheme
              <select
                name="signature_scheme"
                value={scheme}
                onChange={(event) => setScheme((event.currentTarget as HTMLSelectElement).value as SignatureScheme)}
              >
                {SCHEMES.map((value) => (
                  <option key={value} value={value}>
                    {value}
                  </option>
                ))}
              </select>
            </label>
            {scheme === 'hmac-sha256' && (
              <label>
                Signature header
                <input name="signature_header" placeholder="X-Signature-256" />
              </label>
            )}
          </div>
          <div class="grid">
            <div>
              <label>
                Event key expression
                <input name="event_key_expr" placeholder="type" spellcheck={false} aria-describedby="event-key-help" />
              </label>
              <small id="event-key-help">JMESPath over the payload naming the event (default type).</small>
            </div>
            <label>
              Event key header
              <input name="event_key_header" placeholder="none" />
            </label>
            <label>
              Delivery id header
              <input name="delivery_id_header" placeholder="none" />
            </label>
          </div>
          <label>
            Secret
            <input name="webhook_secret" type="password" autocomplete="new-password" minLength={8} aria-describedby="secret-help" />
          </label>
          <small id="secret-help">Leave empty and the platform generates one, shown once.</small>
          <button type="submit" aria-busy={register.busy ? 'true' : undefined}>
            Register webhook
          </button>
          <ErrorNotice error={register.error} context="Registering failed" />
        </form>
      </section>
    </>
  );
}
