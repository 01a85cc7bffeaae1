/** The form that registers a webhook source: its name, its source (the URL's last part), how it signs and names its events. */
import { SIGNATURE_SCHEMES, SOURCE_NAME_PATTERN, type SignatureScheme, type WebhookCreateInput } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { fieldValue, inputPattern } from '../components.js';
import { ActionForm, Options, Submit } from '../forms.js';
import { useAction } from '../hooks.js';
import { useClient } from '../session.js';

/** The API's default scheme, and the one whose signature header is the sender's choice: the others name their own. */
const CUSTOM_HEADER_SCHEME: SignatureScheme = 'hmac-sha256';

export function RegisterWebhook({ onRegistered }: { onRegistered: (created: { source: string; webhook_secret?: string | null | undefined }) => void }) {
  const client = useClient();
  const [scheme, setScheme] = useState<SignatureScheme>(CUSTOM_HEADER_SCHEME);
  const register = useAction(async (form: HTMLFormElement) => {
    const signatureHeader = fieldValue(form, 'signature_header');
    const eventKeyExpr = fieldValue(form, 'event_key_expr');
    const input: WebhookCreateInput = {
      name: fieldValue(form, 'name') ?? '',
      source: fieldValue(form, 'source') ?? '',
      signature_scheme: scheme,
      ...(scheme === CUSTOM_HEADER_SCHEME && signatureHeader ? { signature_header: signatureHeader } : {}),
      ...(eventKeyExpr ? { event_key_expr: eventKeyExpr } : {}),
      event_key_header: fieldValue(form, 'event_key_header'),
      delivery_id_header: fieldValue(form, 'delivery_id_header'),
      webhook_secret: fieldValue(form, 'webhook_secret'),
    };
    const created = await client.webhooks.register(input);
    form.reset();
    setScheme(CUSTOM_HEADER_SCHEME);
    onRegistered(created);
  });
  return (
    <section aria-labelledby="register-title">
      <h2 id="register-title">Register a webhook</h2>
      <ActionForm onSubmit={register.run}>
        <div class="grid">
          <label>
            Name
            <input name="name" required maxLength={200} placeholder="Linear" />
          </label>
          <div>
            <label>
              Source
              <input name="source" required pattern={inputPattern(SOURCE_NAME_PATTERN)} placeholder="linear" aria-describedby="source-rule" />
            </label>
            <small id="source-rule">Lowercase letters, digits and hyphens; it names the URL and what automations trigger on.</small>
          </div>
        </div>
        <div class="grid">
          <label>
            Signature scheme
            <select name="signature_scheme" value={scheme} onChange={(event) => setScheme((event.currentTarget as HTMLSelectElement).value as SignatureScheme)}>
              <Options values={SIGNATURE_SCHEMES} />
            </select>
          </label>
          {scheme === CUSTOM_HEADER_SCHEME && (
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
        <Submit action={register} failed="Registering failed">
          Register webhook
        </Submit>
      </ActionForm>
    </section>
  );
}
