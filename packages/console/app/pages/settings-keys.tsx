/** The agent's API keys (LLM, search): each stored or not, set or removed, its value never shown. */
import { ConfirmButton, ErrorNotice, Hidden, Muted } from '../components.js';
import { useAction } from '../hooks.js';
import { useClient } from '../session.js';
import type { OnChanged, SettingsView } from './settings.js';

type SecretSetting = 'llm_api_key' | 'search_api_key';
const SECRET_SETTINGS: [SecretSetting, string][] = [
  ['llm_api_key', 'LLM API key'],
  ['search_api_key', 'Search API key'],
];

export function AgentKeys({ view, onChanged }: { view: SettingsView; onChanged: OnChanged }) {
  const client = useClient();
  const setSecretSetting = useAction(async (field: SecretSetting, label: string, value: string) => {
    await client.request('POST /api/v1/settings', { json: { [field]: value } });
    onChanged(value === '' ? `${label} removed.` : `${label} stored.`);
  });
  return (
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
  );
}
