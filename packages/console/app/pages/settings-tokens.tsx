/** Git provider tokens: which providers have one (never its value), store one, remove one. */
import { PROVIDER_TYPES, type ProviderType } from '@agent-platform/client';
import { ConfirmButton, ErrorNotice, fieldValue } from '../components.js';
import { ActionForm, Options, Submit } from '../forms.js';
import { useAction } from '../hooks.js';
import { useClient } from '../session.js';
import type { OnChanged, SettingsView } from './settings.js';

export function ProviderTokens({ view, onChanged }: { view: SettingsView; onChanged: OnChanged }) {
  const client = useClient();
  const setToken = useAction(async (form: HTMLFormElement) => {
    const provider = fieldValue(form, 'provider') as ProviderType;
    const host = fieldValue(form, 'provider_host');
    await client.gitProviders.store({
      provider_tokens: { [provider]: { token: (form.elements.namedItem('provider_token') as HTMLInputElement).value, ...(host ? { host } : {}) } },
    });
    form.reset();
    onChanged(`${provider} token stored.`);
  });
  const unsetToken = useAction(async (provider: ProviderType) => {
    await client.gitProviders.unset({ providers: [provider] });
    onChanged(`${provider} token removed.`);
  });
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">Git provider tokens</h2>
      <ErrorNotice error={unsetToken.error} context="Removing the token failed" />
      {Object.keys(view.provider_tokens_set).length === 0 ? (
        <p>No tokens stored.</p>
      ) : (
        <ul>
          {Object.entries(view.provider_tokens_set).map(([provider, host]) => (
            <li key={provider}>
              {provider} token stored{host ? ` for ${host}` : ''} (never shown){' '}
              <ConfirmButton
                label="Remove"
                hidden={`${provider} token`}
                question={`Remove the ${provider} token?`}
                confirm={`Remove ${provider} token`}
                onConfirm={() => void unsetToken.run(provider as ProviderType)}
              />
            </li>
          ))}
        </ul>
      )}
      <ActionForm aria-labelledby="add-token-title" onSubmit={setToken.run}>
        <h3 id="add-token-title">Store a token</h3>
        <div class="grid">
          <label>
            Provider
            <select name="provider">
              <Options values={PROVIDER_TYPES} />
            </select>
          </label>
          <label>
            Token
            <input name="provider_token" type="password" autocomplete="off" required />
          </label>
          <label>
            Host
            <input name="provider_host" placeholder="the provider's" />
          </label>
        </div>
        <Submit action={setToken} failed="Storing the token failed">
          Store token
        </Submit>
      </ActionForm>
    </section>
  );
}
