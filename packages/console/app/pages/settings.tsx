/**
 * Settings and secrets. Settings are saved as a partial update (`POST /api/v1/settings`: only the
 * fields sent change). Secrets — the LLM and search API keys, custom secrets, git-provider tokens —
 * can be set and unset; the platform never returns a value, so none is ever shown here.
 */
import type { ProviderType } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { checked, ConfirmButton, ErrorNotice, fieldValue, Hidden, Muted, PageTitle, StatusNote } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { useClient } from '../session.js';

const PROVIDERS: ProviderType[] = ['github', 'gitlab', 'bitbucket', 'bitbucket_data_center', 'azure_devops', 'forgejo', 'enterprise_sso'];

type SecretSetting = 'llm_api_key' | 'search_api_key';
const SECRET_SETTINGS: [SecretSetting, string][] = [
  ['llm_api_key', 'LLM API key'],
  ['search_api_key', 'Search API key'],
];

export function SettingsPage() {
  const client = useClient();
  const settings = useResource((signal) => client.request('GET /api/v1/settings', {}, { signal }), []);
  const secrets = useResource((signal) => client.secrets.list({ limit: 100 }, { signal }), []);
  const [note, setNote] = useState<string | null>(null);
  const done = (message: string) => {
    setNote(message);
    settings.reload();
    secrets.reload();
  };

  const save = useAction(async (form: HTMLFormElement) => {
    const number = (name: string) => (fieldValue(form, name) === null ? null : Number(fieldValue(form, name)));
    await client.request('POST /api/v1/settings', {
      json: {
        llm_model: fieldValue(form, 'llm_model'),
        llm_base_url: fieldValue(form, 'llm_base_url'),
        agent: fieldValue(form, 'agent'),
        max_iterations: number('max_iterations'),
        max_budget_per_task: number('max_budget_per_task'),
        confirmation_mode: checked(form, 'confirmation_mode'),
        git_user_name: fieldValue(form, 'git_user_name'),
        git_user_email: fieldValue(form, 'git_user_email'),
      },
    });
    done('Settings saved.');
  });
  const setSecretSetting = useAction(async (field: SecretSetting, label: string, value: string) => {
    await client.request('POST /api/v1/settings', { json: { [field]: value } });
    done(value === '' ? `${label} removed.` : `${label} stored.`);
  });
  const addSecret = useAction(async (form: HTMLFormElement) => {
    const name = fieldValue(form, 'secret_name') ?? '';
    await client.secrets.create({
      name,
      value: (form.elements.namedItem('secret_value') as HTMLInputElement).value,
      description: fieldValue(form, 'secret_description'),
    });
    form.reset();
    done(`Secret ${name} stored.`);
  });
  const removeSecret = useAction(async (name: string) => {
    await client.secrets.delete(name);
    done(`Secret ${name} removed.`);
  });
  const setToken = useAction(async (form: HTMLFormElement) => {
    const provider = fieldValue(form, 'provider') as ProviderType;
    const host = fieldValue(form, 'provider_host');
    await client.gitProviders.store({
      provider_tokens: { [provider]: { token: (form.elements.namedItem('provider_token') as HTMLInputElement).value, ...(host ? { host } : {}) } },
    });
    form.reset();
    done(`${provider} token stored.`);
  });
  const unsetToken = useAction(async (provider: ProviderType) => {
    await client.gitProviders.unset({ providers: [provider] });
    done(`${provider} token removed.`);
  });

  const view = settings.data;
  return (
    <>
      <PageTitle>Settings</PageTitle>
      <p>Your settings, and the secrets runs get. Secret values are stored encrypted and never shown: set or remove them here.</p>
      {note && <StatusNote>{note}</StatusNote>}
      <ErrorNotice error={settings.error} context="Loading the settings failed" />
      {view && (
        <section aria-labelledby="agent-settings-title">
          <h2 id="agent-settings-title">Agent</h2>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void save.run(event.currentTarget as HTMLFormElement);
            }}
          >
            <div class="grid">
              <label>
                Model
                <input name="llm_model" defaultValue={view.llm_model ?? ''} placeholder="e.g. anthropic/claude-sonnet-4-5" />
              </label>
              <label>
                LLM base URL
                <input name="llm_base_url" type="url" defaultValue={view.llm_base_url ?? ''} placeholder="the provider's" />
              </label>
            </div>
            <div class="grid">
              <label>
                Agent
                <input name="agent" defaultValue={view.agent ?? ''} placeholder="chosen by the platform" />
              </label>
              <label>
                Max iterations
                <input name="max_iterations" type="number" min={1} defaultValue={view.max_iterations?.toString() ?? ''} />
              </label>
              <label>
                Max budget per task (USD)
                <input name="max_budget_per_task" type="number" min={0} step="any" defaultValue={view.max_budget_per_task?.toString() ?? ''} />
              </label>
            </div>
            <div class="grid">
              <label>
                Git user name
                <input name="git_user_name" defaultValue={view.git_user_name ?? ''} />
              </label>
              <label>
                Git user email
                <input name="git_user_email" type="email" defaultValue={view.git_user_email ?? ''} />
              </label>
            </div>
            <label>
              {/* biome-ignore lint/a11y/useAriaPropsForRole: a native checkbox styled as a switch (Pico); its checked state is the native one, and ARIA in HTML says not to add aria-checked to an input type=checkbox */}
              <input name="confirmation_mode" type="checkbox" role="switch" defaultChecked={view.confirmation_mode ?? false} />
              Confirmation mode: hold each action of the agent until I accept it
            </label>
            <button type="submit" aria-busy={save.busy ? 'true' : undefined}>
              Save settings
            </button>
            <ErrorNotice error={save.error} context="Saving failed" />
          </form>
        </section>
      )}
      {view && (
        <section aria-labelledby="api-keys-title">
          <h2 id="api-keys-title">API keys for the agent</h2>
          <ErrorNotice error={setSecretSetting.error} context="Storing the key failed" />
          {SECRET_SETTINGS.map(([field, label]) => {
            const isSet = field === 'llm_api_key' ? view.llm_api_key_set : view.search_api_key_set;
            return (
              <form
                key={field}
                aria-label={label}
                class="secret-setting"
                onSubmit={(event) => {
                  event.preventDefault();
                  const form = event.currentTarget as HTMLFormElement;
                  const value = (form.elements.namedItem(field) as HTMLInputElement).value;
                  form.reset();
                  void setSecretSetting.run(field, label, value);
                }}
              >
                <p>
                  {label}: <strong>{isSet ? 'stored' : 'not set'}</strong>
                  {isSet && <Muted> (never shown)</Muted>}
                </p>
                <div class="grid">
                  <label>
                    {isSet ? `New ${label}` : label}
                    <input name={field} type="password" autocomplete="off" required />
                  </label>
                  <div class="actions">
                    <button type="submit">
                      Store<Hidden> {label}</Hidden>
                    </button>
                    {isSet && (
                      <ConfirmButton
                        label="Remove"
                        hidden={label}
                        question={`Remove the ${label}?`}
                        confirm={`Remove ${label}`}
                        onConfirm={() => void setSecretSetting.run(field, label, '')}
                      />
                    )}
                  </div>
                </div>
              </form>
            );
          })}
        </section>
      )}
      <section aria-labelledby="secrets-title">
        <h2 id="secrets-title">Secrets</h2>
        <p>Custom secrets reach the agent's commands as environment variables of the same name.</p>
        <ErrorNotice error={secrets.error} context="Loading the secrets failed" />
        <ErrorNotice error={removeSecret.error} context="Removing the secret failed" />
        {secrets.data &&
          (secrets.data.items.length === 0 ? (
            <p>No secrets stored.</p>
          ) : (
            <table>
              <caption>Stored secrets (names only)</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {secrets.data.items.map((secret) => (
                  <tr key={secret.name}>
                    <td>
                      <code>{secret.name}</code>
                    </td>
                    <td>{secret.description ?? <Muted>none</Muted>}</td>
                    <td>
                      <ConfirmButton
                        label="Remove"
                        hidden={`secret ${secret.name}`}
                        question={`Remove ${secret.name}?`}
                        confirm={`Remove ${secret.name}`}
                        onConfirm={() => void removeSecret.run(secret.name)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        <form
          aria-labelledby="add-secret-title"
          onSubmit={(event) => {
            event.preventDefault();
            void addSecret.run(event.currentTarget as HTMLFormElement);
          }}
        >
          <h3 id="add-secret-title">Add a secret</h3>
          <div class="grid">
            <label>
              Secret name
              <input name="secret_name" required pattern="[A-Za-z_][A-Za-z0-9_]*" placeholder="NPM_TOKEN" spellcheck={false} />
            </label>
            <label>
              Secret value
              <input name="secret_value" type="password" autocomplete="off" required />
            </label>
            <label>
              Description
              <input name="secret_description" />
            </label>
          </div>
          <button type="submit" aria-busy={addSecret.busy ? 'true' : undefined}>
            Add secret
          </button>
          <ErrorNotice error={addSecret.error} context="Storing the secret failed" />
        </form>
      </section>
      {view && (
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
          <form
            aria-labelledby="add-token-title"
            onSubmit={(event) => {
              event.preventDefault();
              void setToken.run(event.currentTarget as HTMLFormElement);
            }}
          >
            <h3 id="add-token-title">Store a token</h3>
            <div class="grid">
              <label>
                Provider
                <select name="provider">
                  {PROVIDERS.map((provider) => (
                    <option key={provider} value={provider}>
                      {provider}
                    </option>
                  ))}
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
            <button type="submit" aria-busy={setToken.busy ? 'true' : undefined}>
              Store token
            </button>
            <ErrorNotice error={setToken.error} context="Storing the token failed" />
          </form>
        </section>
      )}
    </>
  );
}
