/** Custom secrets: their names and descriptions (never a value), add one, remove one. */
import type { CustomSecret, CustomSecretPage } from '@agent-platform/client';
import { ConfirmButton, ErrorNotice, fieldValue, Muted } from '../components.js';
import { ActionForm, Submit } from '../forms.js';
import { useAction, type Resource } from '../hooks.js';
import { useClient } from '../session.js';
import { ResourceTable } from '../table.js';
import type { OnChanged } from './settings.js';

export function CustomSecrets({ secrets, onChanged }: { secrets: Resource<CustomSecretPage>; onChanged: OnChanged }) {
  const client = useClient();
  const addSecret = useAction(async (form: HTMLFormElement) => {
    const name = fieldValue(form, 'secret_name') ?? '';
    await client.secrets.create({
      name,
      value: (form.elements.namedItem('secret_value') as HTMLInputElement).value,
      description: fieldValue(form, 'secret_description'),
    });
    form.reset();
    onChanged(`Secret ${name} stored.`);
  });
  const removeSecret = useAction(async (name: string) => {
    await client.secrets.delete(name);
    onChanged(`Secret ${name} removed.`);
  });
  return (
    <section aria-labelledby="secrets-title">
      <h2 id="secrets-title">Secrets</h2>
      <p>Custom secrets reach the agent's commands as environment variables of the same name.</p>
      <ErrorNotice error={removeSecret.error} context="Removing the secret failed" />
      <ResourceTable
        resource={secrets}
        rowsOf={(data) => data.items}
        rowKey={(secret: CustomSecret) => secret.name}
        columns={[
          { header: 'Name', cell: (secret) => <code>{secret.name}</code> },
          { header: 'Description', cell: (secret) => secret.description ?? <Muted>none</Muted> },
          {
            header: 'Actions',
            cell: (secret) => (
              <ConfirmButton
                label="Remove"
                hidden={`secret ${secret.name}`}
                question={`Remove ${secret.name}?`}
                confirm={`Remove ${secret.name}`}
                onConfirm={() => void removeSecret.run(secret.name)}
              />
            ),
          },
        ]}
        caption="Stored secrets (names only)"
        striped={false}
        empty="No secrets stored."
        errorContext="Loading the secrets failed"
      />
      <ActionForm aria-labelledby="add-secret-title" onSubmit={addSecret.run}>
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
        <Submit action={addSecret} failed="Storing the secret failed">
          Add secret
        </Submit>
      </ActionForm>
    </section>
  );
}
