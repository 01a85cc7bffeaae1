/**
 * Settings and secrets. Settings are saved as a partial update (`POST /api/v1/settings`: only the
 * fields sent change). Secrets — the LLM and search API keys (settings-keys.tsx), custom secrets
 * (settings-secrets.tsx), git-provider tokens (settings-tokens.tsx) — can be set and unset; the
 * platform never returns a value, so none is ever shown here.
 */
import type { RouteResponse } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { checked, ErrorNotice, fieldValue, PageTitle, StatusNote } from '../components.js';
import { ActionForm, Submit } from '../forms.js';
import { useAction, useResource } from '../hooks.js';
import { NeedsRole } from '../role-note.js';
import { useClient, usePermissions } from '../session.js';
import { ConsoleSettings } from './settings-console.js';
import { AgentKeys } from './settings-keys.js';
import { CustomSecrets } from './settings-secrets.js';
import { ProviderTokens } from './settings-tokens.js';

/** The settings as the API shows them: secrets only as whether they are set. */
export type SettingsView = RouteResponse<'GET /api/v1/settings'>;

/** What a settings section says when it changed something: the note to show, and the page reloads. */
export type OnChanged = (message: string) => void;

export function SettingsPage() {
  const client = useClient();
  const can = usePermissions();
  const settings = useResource((signal) => client.request('GET /api/v1/settings', {}, { signal }), []);
  const secrets = useResource((signal) => client.secrets.list({ limit: 100 }, { signal }), []);
  const [note, setNote] = useState<string | null>(null);
  const changed: OnChanged = (message) => {
    setNote(message);
    settings.reload();
    secrets.reload();
  };
  const view = settings.data;
  return (
    <>
      <PageTitle>Settings</PageTitle>
      <p>Your settings, and the secrets runs get. Secret values are stored encrypted and never shown: set or remove them here.</p>
      {note && <StatusNote>{note}</StatusNote>}
      <ErrorNotice error={settings.error} context="Loading the settings failed" />
      {!can.write && <NeedsRole needed="member" what="Changing settings and secrets" />}
      {/* A viewer still sees what is set: every field and button is there, disabled. */}
      <fieldset disabled={!can.write}>
        {view && <AgentSettings view={view} onChanged={changed} />}
        {view && <ConsoleSettings view={view} onChanged={changed} />}
        {view && <AgentKeys view={view} onChanged={changed} />}
        <CustomSecrets secrets={secrets} onChanged={changed} />
        {view && <ProviderTokens view={view} onChanged={changed} />}
      </fieldset>
    </>
  );
}

function AgentSettings({ view, onChanged }: { view: SettingsView; onChanged: OnChanged }) {
  const client = useClient();
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
    onChanged('Settings saved.');
  });
  return (
    <section aria-labelledby="agent-settings-title">
      <h2 id="agent-settings-title">Agent</h2>
      <ActionForm onSubmit={save.run}>
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
        <Submit action={save} failed="Saving failed">
          Save settings
        </Submit>
      </ActionForm>
    </section>
  );
}
