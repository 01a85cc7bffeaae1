/** Webhook sources: register one (its generated secret shown once), rotate a secret (the new one shown once), delete. */
import type { WebhookView } from '@agent-platform/client';
import { useState } from 'preact/hooks';
import { ConfirmButton, ErrorNotice, Muted, PageTitle, SecretOnce, StatusNote, Time } from '../components.js';
import { useAction, useResource } from '../hooks.js';
import { NeedsRole } from '../role-note.js';
import { useClient, usePermissions } from '../session.js';
import { ResourceTable, type Column } from '../table.js';
import { RegisterWebhook } from './webhook-form.js';

const COLUMNS: Column<WebhookView>[] = [
  {
    header: 'Name',
    cell: (webhook) => (
      <>
        {webhook.name}
        {!webhook.enabled && <Muted> (disabled)</Muted>}
      </>
    ),
  },
  { header: 'Source', cell: (webhook) => webhook.source },
  { header: 'URL', cell: (webhook) => <code class="url">{webhook.webhook_url}</code> },
  {
    header: 'Signature',
    cell: (webhook) => (
      <>
        {webhook.signature_scheme}
        {webhook.signature_scheme === 'hmac-sha256' && <small class="detail">in {webhook.signature_header}</small>}
      </>
    ),
  },
  { header: 'Event key', cell: (webhook) => (webhook.event_key_header ? `header ${webhook.event_key_header}` : <code>{webhook.event_key_expr}</code>) },
  { header: 'Previous secret valid until', cell: (webhook) => <Time value={webhook.previous_secret_expires_at} /> },
];

export function WebhooksPage() {
  const client = useClient();
  const can = usePermissions();
  const webhooks = useResource((signal) => client.webhooks.list({ limit: 100 }, { signal }), []);
  const [shown, setShown] = useState<{ title: string; source: string; secret: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
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
  const actions: Column<WebhookView> = {
    header: 'Actions',
    cell: (webhook) => (
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
    ),
  };
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
      <ErrorNotice error={rotate.error} context="Rotating the secret failed" />
      <ErrorNotice error={remove.error} context="Deleting failed" />
      <ResourceTable
        resource={webhooks}
        rowsOf={(data) => data.webhooks}
        rowKey={(webhook) => webhook.id}
        columns={can.admin ? [...COLUMNS, actions] : COLUMNS}
        caption="Registered webhooks"
        empty="No webhooks registered yet."
        errorContext="Loading the webhooks failed"
      />
      {can.admin ? (
        <RegisterWebhook
          onRegistered={(created) => {
            webhooks.reload();
            if (created.webhook_secret)
              setShown({ title: `Webhook ${created.source} registered: copy its secret now`, source: created.source, secret: created.webhook_secret });
            else setNote(`Webhook ${created.source} registered with the secret you gave.`);
          }}
        />
      ) : (
        <NeedsRole needed="admin" what="Registering, rotating and deleting webhook sources" />
      )}
    </>
  );
}
